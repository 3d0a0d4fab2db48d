package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy/tokens"
)

// callTimeout caps one tool call of a plan.
const callTimeout = 90 * time.Second

// agent plays one task's plan on one MCP client session, as a careful
// agent would: every ref, path segment and selector name in a call's
// arguments must have been seen in an earlier reply of the same run (or
// be given by the task: its URLs, the text to type, the file's name). It
// counts the calls, the o200k tokens of the replies and of the
// arguments, and the time spent in calls.
type agent struct {
	cs    *sdk.ClientSession
	tok   *tokens.Counter
	given []string  // strings the task itself gives
	log   io.Writer // the run's transcript, or nil
	// split turns each batch into one call per step: the MCP tools
	// without batch, for comparison.
	split bool

	replies []string // every reply of the run so far, in order
	res     result
}

// result is what one task run cost.
type result struct {
	calls   int
	obsTok  int // o200k tokens of the replies
	argTok  int // o200k tokens of the calls' arguments (JSON)
	elapsed time.Duration
}

// step is one tool call of a batch.
type step struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
}

// call calls a tool after checking that its arguments name only what the
// run has seen, and returns the reply's text. An error result is an
// error: a plan's calls all succeed.
func (a *agent) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	if err := a.checkSeen(tool, args); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	start := time.Now()
	res, err := a.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	took := time.Since(start)
	a.res.elapsed += took
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	text := b.String()
	a.res.calls++
	a.res.obsTok += a.tok.Count(text)
	a.res.argTok += a.tok.Count(string(raw))
	a.replies = append(a.replies, text)
	if a.log != nil {
		fmt.Fprintf(a.log, "→ %s %s (%d ms)\n%s", tool, raw, took.Milliseconds(), text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(a.log)
		}
	}
	if res.IsError {
		return text, fmt.Errorf("%s %s: %s", tool, raw, text)
	}
	return text, nil
}

// batch runs steps in one batch call, or, when the agent splits
// batches, each in a call of its own; it returns the replies' text.
func (a *agent) batch(ctx context.Context, steps ...step) (string, error) {
	if !a.split {
		return a.call(ctx, "batch", map[string]any{"steps": steps})
	}
	var out strings.Builder
	for _, s := range steps {
		r, err := a.call(ctx, s.Tool, s.Args)
		out.WriteString(r)
		if err != nil {
			return out.String(), err
		}
	}
	return out.String(), nil
}

// shell runs one command line in the shell tool.
func (a *agent) shell(ctx context.Context, command string) (string, error) {
	return a.call(ctx, "shell", map[string]any{"command": command})
}

// all is every reply so far.
func (a *agent) all() string { return strings.Join(a.replies, "\n") }

// ref returns the ref of the node with this role and name in the latest
// reply that shows one: a tree or diff line `role "name" eN`.
func (a *agent) ref(role, name string) (string, error) {
	re := regexp.MustCompile(`(?m)(?:^|[\s+~-])` + regexp.QuoteMeta(role) + ` ` + regexp.QuoteMeta(quote(name)) + ` (e[0-9]+)\b`)
	for i := len(a.replies) - 1; i >= 0; i-- {
		if m := re.FindAllStringSubmatch(a.replies[i], -1); m != nil {
			return m[len(m)-1][1], nil
		}
	}
	return "", fmt.Errorf("no %s %s with a ref in the replies so far", role, quote(name))
}

// quote writes a name as the tree text quotes it (a JSON string, HTML
// characters as they are).
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

var (
	refWord = regexp.MustCompile(`(?:^|[^\w@.-])(e[0-9]+)\b`)
	// selName is a selector's name or text: name:"…", name:…, text:"…".
	selName = regexp.MustCompile(`\b(?:name|text)~?:(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s)]+))`)
	// selectorKeys are the words before ':' that make a selector, not a
	// path segment.
	selectorKeys = map[string]bool{"role": true, "name": true, "text": true, "value": true, "id": true, "state": true,
		"window": true, "app": true, "tab": true, "url": true, "nth": true, "http": true, "https": true}
)

// checkSeen reports, as an error, a ref, a selector's name or a shell path
// segment in args that no earlier reply of the run showed and the task
// does not give.
func (a *agent) checkSeen(tool string, args map[string]any) error {
	seen := a.all()
	var strs []string
	collect(args, &strs)
	for _, s := range strs {
		for _, g := range a.given {
			s = strings.ReplaceAll(s, g, " ")
		}
		for _, m := range refWord.FindAllStringSubmatch(s, -1) {
			if !regexp.MustCompile(`\b` + m[1] + `\b`).MatchString(seen) {
				return fmt.Errorf("%s: the plan uses ref %s, which no earlier reply showed", tool, m[1])
			}
		}
		for _, m := range selName.FindAllStringSubmatch(s, -1) {
			name := m[1] + m[2] + m[3]
			if !strings.Contains(seen, quote(name)) && !strings.Contains(seen, ":"+name) {
				return fmt.Errorf("%s: the plan uses the name %q, which no earlier reply showed", tool, name)
			}
		}
		if tool == "shell" {
			for _, w := range words(s) {
				if err := pathSeen(w, seen); err != nil {
					return fmt.Errorf("shell: %w", err)
				}
			}
		}
	}
	return nil
}

// collect gathers the strings of a decoded JSON value.
func collect(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			collect(v[k], out)
		}
	case []any:
		for _, x := range v {
			collect(x, out)
		}
	case []string:
		*out = append(*out, v...)
	case []step:
		for _, x := range v {
			collect(x.Args, out)
		}
	}
}

// words splits a command line into words, roughly as the shell does:
// quotes group, and are removed.
func words(s string) []string {
	var out []string
	var cur strings.Builder
	in := rune(0)
	has := false
	for _, r := range s {
		switch {
		case in != 0 && r == in:
			in = 0
		case in != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			in, has = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '|':
			if has || cur.Len() > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
			has = false
		default:
			cur.WriteRune(r)
		}
	}
	if has || cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// pathSeen checks a word that is a path of role:name segments: each
// segment must have been shown, as a tree line (`role "name"`) or as a
// segment (`role:name`, in ls output).
func pathSeen(w, seen string) error {
	if !strings.Contains(w, ":") || strings.Contains(w, "://") {
		return nil
	}
	for _, seg := range strings.Split(w, "/") {
		seg, _, _ = strings.Cut(seg, "@")
		role, name, ok := strings.Cut(seg, ":")
		if !ok || selectorKeys[role] {
			continue
		}
		if !strings.Contains(seen, role+" "+quote(name)) && !strings.Contains(seen, seg) {
			return fmt.Errorf("the plan uses the path segment %q, which no earlier reply showed", seg)
		}
	}
	return nil
}
