package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/chromium"
	"github.com/canopy-dev/canopy/internal/leaktest"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// tabTitle reads the current tab's title from a snapshot's header.
var tabTitle = regexp.MustCompile(`(?m)^tab [0-9]+ "([^"]*)"`)

func titleOf(t *testing.T, snapshot string) string {
	t.Helper()
	m := tabTitle.FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no tab header in:\n%s", snapshot)
	}
	return m[1]
}

// TestURLSchemes: at act, navigation and new tabs load web pages only;
// javascript:, data:, file:, view-source: and chrome: need sensitive, and
// are refused before the browser sees them — the script never runs, the
// file is never read — by the tool, inside a batch, however the URL is
// spelt. At sensitive they load.
func TestURLSchemes(t *testing.T) {
	cs := connect(t, newServer(t, Options{}))
	page := testSite.URL("/app-login.html")
	if text, isErr := call(t, cs, "navigate", map[string]any{"url": page}); isErr {
		t.Fatal(text)
	}
	snap, _ := call(t, cs, "snapshot", map[string]any{})
	title := titleOf(t, snap)
	pwn := "javascript:void(document.title='pwned')//://"
	refused := []struct {
		tool string
		args map[string]any
	}{
		{"navigate", map[string]any{"url": pwn}},
		{"navigate", map[string]any{"url": "JavaScript:document.title='pwned'"}},
		{"navigate", map[string]any{"url": " javascript:document.title='pwned'"}},
		{"navigate", map[string]any{"url": "data:text/html,<title>pwned</title>"}},
		{"navigate", map[string]any{"url": "file:///etc/passwd"}},
		{"navigate", map[string]any{"url": "file:///"}},
		{"navigate", map[string]any{"url": "view-source:" + page}},
		{"navigate", map[string]any{"url": "chrome://version"}},
		{"tabs", map[string]any{"action": "new", "url": pwn}},
		{"tabs", map[string]any{"action": "new", "url": "file:///etc/passwd"}},
		{"batch", map[string]any{"steps": []any{
			map[string]any{"tool": "scroll", "args": map[string]any{"direction": "down"}},
			map[string]any{"tool": "navigate", "args": map[string]any{"url": pwn}},
		}}},
	}
	for _, c := range refused {
		text, isErr := call(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(text, "needs the sensitive tier; this session allows act") || strings.Contains(text, "\n") {
			t.Errorf("%s %v at act: (%q, isError=%v), want a one-line refusal", c.tool, c.args, text, isErr)
		}
		if strings.Contains(text, "root:") {
			t.Errorf("%s %v: the reply holds the file: %q", c.tool, c.args, text)
		}
	}
	snap, _ = call(t, cs, "snapshot", map[string]any{})
	if got := titleOf(t, snap); got != title {
		t.Errorf("after the refusals the title is %q, want %q: a script ran", got, title)
	}
	if tabs, _ := call(t, cs, "tabs", map[string]any{"action": "list"}); strings.Count(tabs, "\n") != 1 {
		t.Errorf("a refused new tab opened:\n%s", tabs)
	}
	// Web pages and about:blank stay open at act.
	if text, isErr := call(t, cs, "tabs", map[string]any{"action": "new", "url": "about:blank"}); isErr {
		t.Errorf("tabs new about:blank at act: %s", text)
	}

	// At sensitive the same URLs load.
	cs = connect(t, newServer(t, Options{Session: canopy.Config{Allow: action.Sensitive}}))
	if text, isErr := call(t, cs, "navigate", map[string]any{"url": page}); isErr {
		t.Fatal(text)
	}
	if text, isErr := call(t, cs, "navigate", map[string]any{"url": pwn}); isErr {
		t.Logf("javascript: at sensitive: %s", text)
	}
	snap, _ = call(t, cs, "snapshot", map[string]any{})
	if got := titleOf(t, snap); got != "pwned" {
		t.Errorf("javascript: at sensitive did not run: title %q", got)
	}
	if text, isErr := call(t, cs, "navigate", map[string]any{"url": "data:text/html,<title>made</title><p>hi</p>"}); isErr || !strings.Contains(text, "made") {
		t.Errorf("data: at sensitive: (%q, %v)", text, isErr)
	}
}

// TestAudit: one JSON line per action, allowed or refused, batch steps
// each, with the target as asked and resolved, the page's URL, the
// decision and the outcome; a typed credential's value is nowhere in it.
func TestAudit(t *testing.T) {
	const secret = `hunter2 "quoted" \ <tag> & more`
	t.Setenv("CANOPY_SECRET_AUDITPW", secret)
	var buf bytes.Buffer
	cs := connect(t, newServer(t, Options{Session: canopy.Config{Session: session.Options{Audit: audit.New(&buf)}}}))
	page := testSite.URL("/app-login.html")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"navigate", map[string]any{"url": page}},
		{"type", map[string]any{"target": "role:textbox name:Password", "credential": "auditpw"}},
		{"click", map[string]any{"target": `role:checkbox name:"Remember me"`}},
		{"click", map[string]any{"target": `role:button name:Nowhere`}},
		{"navigate", map[string]any{"url": "javascript:void(0)"}},
		{"batch", map[string]any{"steps": []any{
			map[string]any{"tool": "type", "args": map[string]any{"target": "role:textbox name:Email", "text": "ada@example.com"}},
			map[string]any{"tool": "snapshot", "args": map[string]any{}},
		}}},
	} {
		call(t, cs, c.tool, c.args)
	}
	if strings.Contains(buf.String(), "hunter2") {
		t.Errorf("the audit log holds the credential:\n%s", buf.String())
	}
	var lines []audit.Entry
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		lines = append(lines, e)
	}
	want := []struct {
		kind, decision string
		step           int
		ref            bool
		outcome        string
	}{
		{"navigate", "allowed", 0, false, "ok"},
		{"type", "allowed", 0, true, "ok"},
		{"click", "allowed", 0, true, "ok"},
		{"click", "", 0, false, "no element matches"},
		{"navigate", "refused", 0, false, "needs the sensitive tier"},
		{"type", "allowed", 1, true, "ok"},
		{"snapshot", "allowed", 2, false, "ok"},
		{"batch", "allowed", 0, false, "ok"},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d audit lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		e := lines[i]
		if e.Kind != w.kind || e.Decision != w.decision || e.Step != w.step || !strings.Contains(e.Outcome, w.outcome) ||
			(e.Target != nil && e.Target.Ref != "") != w.ref || e.Surface != "mcp" || e.Time.IsZero() || e.Duration <= 0 {
			t.Errorf("line %d: %+v, want %+v", i+1, e, w)
		}
	}
	if e := lines[2]; e.URL != page || e.Target.Role != "checkbox" || e.Target.Name != "Remember me" || e.Tier != "act" {
		t.Errorf("the click's line: %+v", e)
	}
	if e := lines[1]; !strings.Contains(e.Action, "credential:auditpw") {
		t.Errorf("the credential's line: %+v", e)
	}
	if e := lines[4]; e.URL != "javascript:void(0)" || e.Tier != "sensitive" {
		t.Errorf("the refused navigation's line: %+v", e)
	}
}

// TestCredentialShapes: a credential typed into a page that echoes it,
// upper-cases it, spaces it out, cuts it and sends it in a GET form's URL
// shows in no shape in any reply, error, tab list or audit line; value:
// selectors cannot probe it; the field shows it masked. A short secret and
// a 150-character one with quotes, backslashes, markup and spaces.
func TestCredentialShapes(t *testing.T) {
	long := `Lo"ng\secret <b>&amp; with spaces` + strings.Repeat("x7Q", 40)
	long = long[:150]
	for name, secret := range map[string]string{"short": "s3cr3t-Pw!", "long": long} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("CANOPY_SECRET_SHAPE", secret)
			var logbuf bytes.Buffer
			cs := connect(t, newServer(t, Options{Session: canopy.Config{Session: session.Options{Audit: audit.New(&logbuf)}}}))
			var all strings.Builder
			do := func(tool string, args map[string]any) string {
				t.Helper()
				text, _ := call(t, cs, tool, args)
				all.WriteString(text)
				return text
			}
			do("navigate", map[string]any{"url": testSite.URL("/echo.html")})
			r := do("type", map[string]any{"target": "role:textbox name:Token", "credential": "shape"})
			if !strings.Contains(r, "«credential shape»") {
				t.Errorf("the type reply does not show the mask:\n%s", r)
			}
			do("snapshot", map[string]any{"full": true})
			do("extract", map[string]any{"format": "text"})
			do("extract", map[string]any{"format": "form"})
			for _, probe := range []string{"value:/^" + regexp.QuoteMeta(secret[:3]) + "/", "value~:" + secret[:4], "text~:" + secret[:6], "name~:" + secret[:6]} {
				if text, _ := call(t, cs, "find", map[string]any{"target": probe}); !strings.Contains(text, "no element matches") {
					t.Errorf("find %s matches: the value can be probed:\n%s", probe, text)
				}
			}
			do("batch", map[string]any{"steps": []any{
				map[string]any{"tool": "click", "args": map[string]any{"target": "role:button name:Send"}},
			}})
			do("snapshot", map[string]any{"full": true})
			do("tabs", map[string]any{"action": "list"})
			do("wait", map[string]any{"target": "role:textbox name:Token"})
			if found := leaktest.Shapes(secret, all.String()); len(found) > 0 {
				t.Errorf("the replies hold the credential as %v:\n%s", found, all.String())
			}
			if found := leaktest.Shapes(secret, logbuf.String()); len(found) > 0 {
				t.Errorf("the audit log holds the credential as %v", found)
			}
		})
	}
}

// TestFenced: text a reply takes from the page as it is (extract, also in
// a batch) sits between the markers; canopy's own lines (a diff, extract
// form) do not.
func TestFenced(t *testing.T) {
	cs := connect(t, newServer(t, Options{}))
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/app-login.html")})
	text, _ := call(t, cs, "extract", map[string]any{"format": "text"})
	if !strings.HasPrefix(text, "«page»\n") || !strings.HasSuffix(text, "\n«/page»\n") || strings.Count(text, "«page»") != 1 {
		t.Errorf("extract text is not fenced:\n%s", text)
	}
	form, _ := call(t, cs, "extract", map[string]any{"format": "form"})
	if strings.Contains(form, "«page»") {
		t.Errorf("extract form (canopy's lines) is fenced:\n%s", form)
	}
	batch, _ := call(t, cs, "batch", map[string]any{"steps": []any{
		map[string]any{"tool": "click", "args": map[string]any{"target": `role:checkbox name:"Remember me"`}},
		map[string]any{"tool": "extract", "args": map[string]any{"format": "markdown"}},
	}})
	diffPart, pagePart, ok := strings.Cut(batch, "«page»\n")
	if !ok || strings.Contains(diffPart, "«") || !strings.Contains(diffPart, "checkbox") || !strings.HasSuffix(pagePart, "«/page»\n") {
		t.Errorf("batch: the diff and the page's text are not told apart:\n%s", batch)
	}
}

// connectAsking connects a client whose user answers elicitations with
// answer (nil: a client that cannot be asked).
func connectAsking(t *testing.T, s *Server, answer func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, &sdk.ClientOptions{ElicitationHandler: answer})
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestConfirm: --confirm names the nodes whose actions need the user's
// yes, asked through MCP elicitation: yes runs the action, no, no answer
// in time, or a client that cannot be asked refuse it with one line; other
// actions are not asked about.
func TestConfirm(t *testing.T) {
	const del = `role:listitem text:Apollo >> role:button name:Delete`
	var asked []string
	answers := map[string]func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error){
		"yes": func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = append(asked, r.Params.Message)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
		"no": func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "decline"}, nil
		},
		"silent": func(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
		"cannot": nil,
	}
	want := map[string]string{
		"no":     "was declined by the user",
		"silent": "no answer within 1s",
		"cannot": "this client cannot ask",
	}
	for _, name := range []string{"yes", "no", "silent", "cannot"} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, Options{Session: canopy.Config{Rules: []policy.Option{policy.Confirm(`name:Delete`)}, Session: session.Options{ConfirmTimeout: time.Second}}})
			cs := connectAsking(t, s, answers[name])
			call(t, cs, "navigate", map[string]any{"url": testSite.URL("/dashboard.html")})
			// Not named by --confirm: no question.
			if text, isErr := call(t, cs, "snapshot", map[string]any{}); isErr {
				t.Fatal(text)
			}
			text, isErr := call(t, cs, "click", map[string]any{"target": del})
			if name == "yes" {
				if isErr || !strings.Contains(text, `opened dialog "Confirm delete"`) {
					t.Errorf("confirmed click: (%q, %v)", text, isErr)
				}
				if len(asked) != 1 || !strings.Contains(asked[0], `click button "Delete"`) {
					t.Errorf("the user was asked %q", asked)
				}
				return
			}
			if !isErr || !strings.Contains(text, want[name]) || strings.Contains(strings.TrimSpace(text), "\n") {
				t.Errorf("click: (%q, %v), want a one-line refusal saying %q", text, isErr, want[name])
			}
			if snap, _ := call(t, cs, "snapshot", map[string]any{}); strings.Contains(snap, "Confirm delete") {
				t.Errorf("the refused click ran:\n%s", snap)
			}
		})
	}
	if _, err := policy.Open(action.Act, policy.Confirm(`name:"unclosed`)); err == nil || !strings.Contains(err.Error(), "--confirm") {
		t.Errorf("a --confirm pattern that does not parse: %v", err)
	}
}

// TestConfirmReachedNode: on a real page, --confirm 'name~:/pay|delete/i'
// asks about what an action reaches, not only what it names: typing that
// submits the form past its Pay button, Enter on a Pay button the Tab key
// focused, a click on the group around "Delete all". Each is declined,
// and the page shows none of them ran; typing alone is not asked about.
func TestConfirmReachedNode(t *testing.T) {
	var asked []string
	decline := func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked = append(asked, r.Params.Message)
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	var log bytes.Buffer
	s := newServer(t, Options{Session: canopy.Config{Rules: []policy.Option{policy.Confirm(`name~:/pay|delete/i`)}, Session: session.Options{Audit: audit.New(&log)}}})
	cs := connectAsking(t, s, decline)
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/checkout.html")})
	if text, isErr := call(t, cs, "type", map[string]any{"target": "role:textbox name:Amount", "text": "99"}); isErr || len(asked) != 0 {
		t.Fatalf("typing alone: (%q, %v), asked %q", text, isErr, asked)
	}
	if text, isErr := call(t, cs, "press", map[string]any{"target": "role:textbox name:Amount", "keys": "Tab"}); isErr || !strings.Contains(text, `focus → button "Pay now"`) {
		t.Fatalf("Tab onto Pay: (%q, %v)", text, isErr)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		asks string
	}{
		{"type", map[string]any{"target": "role:textbox name:Amount", "text": "5", "submit": true}, `button "Pay now"`},
		{"press", map[string]any{"keys": "Enter"}, `button "Pay now"`},
		{"click", map[string]any{"target": `role:group name:"Danger zone"`}, `button "Delete all"`},
	} {
		asked = nil
		text, isErr := call(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(text, "was declined by the user") || strings.Contains(strings.TrimSpace(text), "\n") {
			t.Errorf("%s %v: (%q, %v), want a one-line refusal", c.tool, c.args, text, isErr)
		}
		if len(asked) != 1 || !strings.Contains(asked[0], c.asks) {
			t.Errorf("%s %v: the user was asked %q, want a question naming %s", c.tool, c.args, asked, c.asks)
		}
	}
	if snap, _ := call(t, cs, "snapshot", map[string]any{}); !strings.Contains(snap, "Nothing done") {
		t.Errorf("a declined action ran:\n%s", snap)
	}
	// The audit line names what each action reached besides its target.
	reached := 0
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.Decision == "refused" {
			if len(e.Reaches) == 0 || !strings.Contains(strings.Join(e.Reaches, " "), `button "`) {
				t.Errorf("the audit line of a refused %s does not say what it reached: %s", e.Kind, line)
			}
			reached++
		}
	}
	if reached != 3 {
		t.Errorf("%d refused lines in the audit log, want 3:\n%s", reached, log.String())
	}
}

// TestConfirmPageDialog: accepting the page's own confirm() is judged by
// --confirm on the dialog's message, as a click on a button is: declined,
// the page is not told yes; said yes to, it is, and the question quotes
// the message. Dismissing is never asked about.
func TestConfirmPageDialog(t *testing.T) {
	answer := func(yes bool, asked *[]string) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			*asked = append(*asked, r.Params.Message)
			if yes {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
			}
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
	}
	for _, yes := range []bool{false, true} {
		var asked []string
		s := newServer(t, Options{Session: canopy.Config{Rules: []policy.Option{policy.Confirm(`name~:/everything/i`)}}})
		cs := connectAsking(t, s, answer(yes, &asked))
		call(t, cs, "navigate", map[string]any{"url": testSite.URL("/widgets.html")})
		if text, isErr := call(t, cs, "click", map[string]any{"target": `role:button name:"Delete all"`}); isErr || !strings.Contains(text, `confirm "Delete everything?"`) {
			t.Fatalf("click opening the page's confirm(): (%q, %v)", text, isErr)
		}
		if len(asked) != 0 {
			t.Fatalf("the click that opened the dialog was asked about: %q", asked)
		}
		text, isErr := call(t, cs, "dialog", map[string]any{"accept": true})
		if len(asked) != 1 || !strings.Contains(asked[0], `"Delete everything?"`) {
			t.Errorf("yes=%v: the user was asked %q", yes, asked)
		}
		if yes {
			if isErr || !strings.Contains(text, "Deleted all") {
				t.Errorf("accept, confirmed: (%q, %v)", text, isErr)
			}
			continue
		}
		if !isErr || !strings.Contains(text, "was declined by the user") || strings.Contains(strings.TrimSpace(text), "\n") {
			t.Errorf("accept, declined: (%q, %v), want a one-line refusal", text, isErr)
		}
		if text, isErr := call(t, cs, "dialog", map[string]any{"accept": false}); isErr || !strings.Contains(text, "Kept all") || len(asked) != 1 {
			t.Errorf("dismiss after the refusal: (%q, %v), asked %q", text, isErr, asked)
		}
	}
}

// TestMaskTravels: a second canopy attached to the same browser shows the
// field another canopy typed a credential into masked, and cannot probe
// it with value:, though it never knew the value.
func TestMaskTravels(t *testing.T) {
	const secret = "trav3l-Secret-Value"
	t.Setenv("CANOPY_SECRET_TRAVEL", secret)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := chromium.Start(ctx, chromium.Options{URL: testSite.URL("/echo.html")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	first := connect(t, newServer(t, Options{Session: canopy.Config{Browser: browser.Options{CDP: p.URL}, Allow: action.Act}}))
	// The page may still be loading when canopy attaches.
	if text, isErr := call(t, first, "wait", map[string]any{"target": "role:textbox name:Token"}); isErr {
		t.Fatal(text)
	}
	if text, isErr := call(t, first, "type", map[string]any{"target": "role:textbox name:Token", "credential": "travel"}); isErr {
		t.Fatal(text)
	}
	second := connect(t, newServer(t, Options{Session: canopy.Config{Browser: browser.Options{CDP: p.URL}}}))
	snap, _ := call(t, second, "snapshot", map[string]any{"full": true})
	if !strings.Contains(snap, `textbox "Token" e`) || !strings.Contains(snap, `value="«credential travel»"`) {
		t.Errorf("the second canopy does not show the field masked:\n%s", snap)
	}
	if text, _ := call(t, second, "find", map[string]any{"target": "value:/^trav/"}); !strings.Contains(text, "no element matches") {
		t.Errorf("the second canopy can probe the value:\n%s", text)
	}
	// The field tells the second canopy the value, so every copy the page
	// made of it is redacted too.
	if found := leaktest.Shapes(secret, snap); len(found) > 0 {
		t.Errorf("the second canopy sees the value as %v:\n%s", found, snap)
	}
}
