package canopy_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/cli"
	"github.com/canopy-dev/canopy/internal/mcptest"
	"github.com/canopy-dev/canopy/mcp"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/shell"
)

// gateCase is one action the table test runs at every tier through every
// path: as a step (canopy do and the library, parsed from step), as an MCP
// tool call and as a one-step MCP batch (tool, args; "" when the kind has
// no tool of its own). need is the tier docs/tiers.md says it needs, written
// out here rather than asked of the code under test.
type gateCase struct {
	step string
	tool string
	args map[string]any
	need action.Tier
}

// gateCases covers every action kind, and each attempt of issue 13's list
// of holes: script and local URLs, a program that is not a desktop
// application, uploads from outside the files folder; and issue 30's
// files written outside the downloads folder (tmp/downloads, where
// "../x.png" is tmp/x.png and link a link to tmp/out).
func gateCases(files, tmp string) []gateCase {
	page := testSite.URL("/login.html")
	inFiles := filepath.Join(files, "upload.txt")
	ran := filepath.Join(tmp, "ran")
	return []gateCase{
		{`snapshot`, "snapshot", nil, action.Observe},
		{`find id:news`, "find", map[string]any{"target": "id:news"}, action.Observe},
		{`wait id:news`, "wait", map[string]any{"target": "id:news", "timeout_ms": 500}, action.Observe},
		{`extract text`, "extract", map[string]any{"format": "text"}, action.Observe},
		{`extract form`, "extract", map[string]any{"format": "form"}, action.Observe},
		{`screenshot "s.png"`, "screenshot", map[string]any{}, action.Observe},
		{`tabs list`, "tabs", map[string]any{"action": "list"}, action.Observe},
		{`click id:news`, "click", map[string]any{"target": "id:news"}, action.Act},
		{`double_click id:dbl`, "click", map[string]any{"target": "id:dbl", "count": 2}, action.Act},
		{`hover id:hover`, "hover", map[string]any{"target": "id:hover"}, action.Act},
		{`type id:q "x"`, "type", map[string]any{"target": "id:q", "text": "x"}, action.Act},
		{`press id:q Enter`, "press", map[string]any{"target": "id:q", "keys": "Enter"}, action.Act},
		{`select id:region "Asia"`, "select", map[string]any{"target": "id:region", "option": "Asia"}, action.Act},
		{`check id:news`, "check", map[string]any{"target": "id:news"}, action.Act},
		{`uncheck id:news`, "check", map[string]any{"target": "id:news", "checked": false}, action.Act},
		{`set_value id:volume "30"`, "", nil, action.Act},
		{`scroll down 100`, "scroll", map[string]any{"direction": "down", "amount": 100}, action.Act},
		{`drag id:card "id:drop"`, "drag", map[string]any{"from": "id:card", "to": "id:drop"}, action.Act},
		{fmt.Sprintf(`upload id:file %q`, inFiles), "upload", map[string]any{"target": "id:file", "paths": []any{inFiles}}, action.Act},
		{fmt.Sprintf(`navigate %q`, page), "navigate", map[string]any{"url": page}, action.Act},
		{`back`, "navigate", map[string]any{"action": "back"}, action.Act},
		{fmt.Sprintf(`tabs new %q`, page), "tabs", map[string]any{"action": "new", "url": page}, action.Act},
		{`dialog accept`, "dialog", map[string]any{"accept": true}, action.Act},
		{`evaluate "document.title"`, "evaluate", map[string]any{"script": "document.title"}, action.Sensitive},
		{`find at 20,20`, "find", map[string]any{"at": "20,20"}, action.Observe},
		{`click at 20,20`, "click", map[string]any{"at": "20,20"}, action.Act},
		{`print`, "print", map[string]any{}, action.Act},
		{`permissions grant geolocation`, "permissions", map[string]any{"grant": []any{"geolocation"}}, action.Act},
		{`clipboard "copied"`, "clipboard", map[string]any{"text": "copied"}, action.Act},
		{`clipboard`, "clipboard", map[string]any{}, action.Sensitive},
		{`activate app:mousepad`, "", nil, action.Act},
		{`open_app mousepad`, "", nil, action.Act},
		// The holes: scripts and local pages need sensitive, however spelled.
		{`navigate "javascript:document.title='pwned'//://"`, "navigate", map[string]any{"url": "javascript:document.title='pwned'//://"}, action.Sensitive},
		{`navigate " JavaScript:void(0)"`, "navigate", map[string]any{"url": " JavaScript:void(0)"}, action.Sensitive},
		{`tabs new "javascript:document.title='pwned'"`, "tabs", map[string]any{"action": "new", "url": "javascript:document.title='pwned'"}, action.Sensitive},
		{`navigate "data:text/html,<title>pwned</title>"`, "navigate", map[string]any{"url": "data:text/html,<title>pwned</title>"}, action.Sensitive},
		{`navigate "file:///etc/passwd"`, "navigate", map[string]any{"url": "file:///etc/passwd"}, action.Sensitive},
		{`navigate "view-source:` + page + `"`, "navigate", map[string]any{"url": "view-source:" + page}, action.Sensitive},
		{`navigate "chrome://version"`, "navigate", map[string]any{"url": "chrome://version"}, action.Sensitive},
		{`upload id:file "/etc/shadow"`, "upload", map[string]any{"target": "id:file", "paths": []any{"/etc/shadow"}}, action.Sensitive},
		{`upload id:file "/nonexistent/shadow"`, "upload", map[string]any{"target": "id:file", "paths": []any{"/nonexistent/shadow"}}, action.Sensitive},
		{fmt.Sprintf(`open_app sh "-c" "touch %s"`, ran), "", nil, action.Sensitive},
		// Issue 30: no program runs page-supplied code at act, and no file
		// from outside the downloads and files folders is handed over.
		{fmt.Sprintf(`open_app /usr/bin/python3 %q`, filepath.Join(tmp, "downloads", "evil.py")), "", nil, action.Sensitive},
		{fmt.Sprintf(`open_app vim "+!touch %s" "+qa!"`, ran), "", nil, action.Sensitive},
		{`open_app mousepad "/etc/hostname"`, "", nil, action.Sensitive},
		{`open_app mousepad "file:///etc/passwd"`, "", nil, action.Sensitive},
		{fmt.Sprintf(`open_app mousepad %q`, inFiles), "", nil, action.Act},
		{fmt.Sprintf(`print %q`, filepath.Join(tmp, "out.pdf")), "print", map[string]any{"path": filepath.Join(tmp, "out.pdf")}, action.Sensitive},
		{`print "../x.pdf"`, "print", map[string]any{"path": "../x.pdf"}, action.Sensitive},
		{`print "link/x.pdf"`, "print", map[string]any{"path": "link/x.pdf"}, action.Sensitive},
		// A screenshot's path is a step's only (the tool answers with the
		// image): outside the downloads folder it needs sensitive.
		{fmt.Sprintf(`screenshot %q`, filepath.Join(tmp, "s.png")), "", nil, action.Sensitive},
		{`screenshot "../x.png"`, "", nil, action.Sensitive},
		{`screenshot "link/x.png"`, "", nil, action.Sensitive},
		{`permissions grant clipboard`, "permissions", map[string]any{"grant": []any{"clipboard"}}, action.Sensitive},
	}
}

// refusal matches the policy's one-line tier refusal.
var refusal = regexp.MustCompile(`needs the (observe|act|sensitive) tier`)

// TestGateEveryPath runs every action kind at every tier through every
// path an agent has — the library, the shell in a loop, an MCP tool call,
// an MCP batch, the MCP shell tool in a script, canopy do — against a real
// Chromium, and checks that each is refused exactly
// when its tier is above the session's: no bypass, no false refusal.
func TestGateEveryPath(t *testing.T) {
	ctx, s := context.Background(), testSite
	files, tmp := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "upload.txt"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	widgets := s.URL("/widgets.html")
	cases := gateCases(files, tmp)
	rules := []policy.Option{policy.Files(files)}
	downloads := filepath.Join(tmp, "downloads")
	if err := os.MkdirAll(filepath.Join(tmp, "out"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(downloads, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tmp, "out"), filepath.Join(downloads, "link")); err != nil {
		t.Fatal(err)
	}
	dl := browser.Options{DownloadDir: downloads}
	written := func() map[string]bool { // the files outside the downloads folder
		got := map[string]bool{}
		for _, d := range []string{tmp, filepath.Join(tmp, "out")} {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if !e.IsDir() {
					got[filepath.Join(d, e.Name())] = true
				}
			}
		}
		return got
	}
	check := func(t *testing.T, path string, c gateCase, tier action.Tier, refused bool, reply string) {
		t.Helper()
		if want := c.need > tier; refused != want {
			t.Errorf("%s at %s via %s: refused=%v, want %v: %s", c.step, tier, path, refused, want, firstLine(reply))
		}
	}
	for _, tier := range []action.Tier{action.Observe, action.Act, action.Sensitive} {
		t.Run(tier.String(), func(t *testing.T) {
			if tier < action.Sensitive {
				// Below sensitive, no path writes a file outside the
				// downloads folder.
				defer func() {
					if got := written(); len(got) > 0 {
						t.Errorf("files written outside the downloads folder at %s: %v", tier, got)
					}
				}()
			}
			// The library.
			sess, err := canopy.Open(ctx, canopy.Config{Allow: tier, Rules: rules, Browser: dl})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			for _, c := range cases {
				if _, err := sess.Browser().Navigate(ctx, widgets, 0); err != nil {
					t.Fatal(err)
				}
				steps, err := action.ParseSteps(c.step)
				if err != nil {
					t.Fatalf("%s: %v", c.step, err)
				}
				_, err = sess.Run(ctx, steps[0])
				check(t, "the library", c, tier, err != nil && refusal.MatchString(err.Error()), fmt.Sprint(err))
			}

			// The shell: each step is a command, here inside a loop.
			sh := shell.New(sess.Session, shell.Options{})
			for _, c := range cases {
				if _, err := sess.Browser().Navigate(ctx, widgets, 0); err != nil {
					t.Fatal(err)
				}
				var out strings.Builder
				err := sh.Run(ctx, "for i in 1; do "+c.step+"; done", &out)
				check(t, "a shell loop", c, tier, err != nil && refusal.MatchString(err.Error()), fmt.Sprint(err))
			}

			// MCP: each tool called alone, and as a one-step batch.
			srv, err := mcp.New(mcp.Options{Session: canopy.Config{Allow: tier, Rules: rules, Browser: dl}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			cs := mcptest.Connect(t, srv.SDK())
			for _, c := range cases {
				if c.tool == "" {
					continue
				}
				if tier >= action.Act {
					mcptest.Call(t, cs, "navigate", map[string]any{"url": widgets})
				}
				text, isErr := mcptest.Call(t, cs, c.tool, c.args)
				check(t, "an MCP call", c, tier, isErr && refusal.MatchString(text), text)
				if tier >= action.Act {
					mcptest.Call(t, cs, "navigate", map[string]any{"url": widgets})
				}
				text, isErr = mcptest.Call(t, cs, "batch", map[string]any{"steps": []any{map[string]any{"tool": c.tool, "args": c.args}}})
				check(t, "an MCP batch", c, tier, isErr && refusal.MatchString(text), text)
			}
			// The MCP shell tool, each step inside a saved script.
			for i, c := range cases {
				if tier >= action.Act {
					mcptest.Call(t, cs, "navigate", map[string]any{"url": widgets})
				}
				cmd := fmt.Sprintf("script save gate%d do %s; done; script run gate%d", i, c.step, i)
				text, isErr := mcptest.Call(t, cs, "shell", map[string]any{"command": cmd})
				check(t, "an MCP shell script", c, tier, isErr && refusal.MatchString(text), text)
			}

			// canopy do: the page it opens with is a navigate, which
			// observe refuses; above it, each refused step is refused.
			allow := "--allow=" + tier.String()
			if tier == action.Observe {
				code, _, errs := runCLI(t, "do", allow, widgets, "snapshot")
				if code == 0 || !refusal.MatchString(errs) {
					t.Errorf("canopy do at observe loaded its page: exit %d, %q", code, errs)
				}
				return
			}
			for _, c := range cases {
				if c.need <= tier {
					continue
				}
				code, out, errs := runCLI(t, "do", allow, "--files", files, "--downloads", downloads, widgets, c.step)
				check(t, "canopy do", c, tier, code != 0 && refusal.MatchString(errs), errs+out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "ran")); err == nil {
		t.Errorf("open_app ran sh below the sensitive tier")
	}
}

// TestUploadNoOracle: a refused upload says the same whether the file
// exists or not: the policy judges the path before anything is looked up.
func TestUploadNoOracle(t *testing.T) {
	ctx, s := context.Background(), testSite
	sess, err := canopy.Open(ctx, canopy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: s.URL("/widgets.html")}); err != nil {
		t.Fatal(err)
	}
	msg := func(path string) string {
		_, err := sess.Run(ctx, action.Action{Kind: action.Upload, Target: "id:file", Paths: []string{path}})
		if err == nil {
			t.Fatalf("upload %s at act: allowed", path)
		}
		return strings.ReplaceAll(err.Error(), path, "PATH")
	}
	if a, b := msg("/etc/passwd"), msg("/nonexistent/passwd"); a != b {
		t.Errorf("refusals differ by whether the file exists:\n%s\n%s", a, b)
	}
}

// runCLI runs canopy's CLI in-process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	code = cli.Main(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
