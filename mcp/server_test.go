//go:build !windows

package mcp

import (
	"bytes"
	"context"
	"image/png"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/chromium"
)

// TestFlow drives a real Chromium through the tools an agent uses most and
// keeps the replies as a golden transcript: navigate returns the page,
// acting tools return diffs, a no-op says so, a batch returns one diff.
func TestFlow(t *testing.T) {
	cs := connect(t, newServer(t, Options{}))
	var transcript strings.Builder
	step := func(tool string, args map[string]any) string {
		t.Helper()
		text, isErr := call(t, cs, tool, args)
		if isErr {
			t.Fatalf("%s %v failed: %s", tool, args, text)
		}
		transcript.WriteString("## " + tool + "\n" + text)
		return text
	}
	nav := step("navigate", map[string]any{"url": testSite.URL("/app-login.html")})
	if !strings.Contains(nav, `textbox "Email"`) {
		t.Errorf("navigate did not return the page's tree:\n%s", nav)
	}
	step("snapshot", map[string]any{"scope": "role:form"})
	click := step("click", map[string]any{"target": `role:checkbox name:"Remember me"`})
	if !strings.Contains(click, "checked") {
		t.Errorf("click reply does not show the box checked:\n%s", click)
	}
	if again := step("check", map[string]any{"target": `role:checkbox name:"Remember me"`}); again != "no change\n" {
		t.Errorf("checking a checked box: %q, want \"no change\"", again)
	}
	step("batch", map[string]any{"steps": []any{
		map[string]any{"tool": "type", "args": map[string]any{"target": "role:textbox name:Email", "text": "ada@example.com"}},
		map[string]any{"tool": "check", "args": map[string]any{"target": `role:checkbox name:"Remember me"`, "checked": false}},
	}})
	step("find", map[string]any{"target": "role:button"})
	step("extract", map[string]any{"format": "form"})
	golden(t, "flow.txt", transcript.String())
}

// TestBadArguments: every kind of bad call is an isError result with a
// one-line reason, no browser is started for calls that cannot run, and the
// server answers the next good call.
func TestBadArguments(t *testing.T) {
	s := newServer(t, Options{})
	cs := connect(t, s)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"click", map[string]any{}, `click needs a target: a selector such as role:button name:Save, a ref such as e12, or a point (at 120,340)`},
		{"click", map[string]any{"target": "e1", "force": true}, `click: unknown argument "force" (click takes target, at, button, count)`},
		{"click", map[string]any{"target": "e1", "at": "1,1"}, `click takes a target or a point (at), not both`},
		{"click", map[string]any{"at": "one,two"}, `at must be a point x,y in pixels, such as 120,340; got "one,two"`},
		{"click", map[string]any{"target": "e1", "count": "two"}, `click: argument "count" must be an integer, not a string`},
		{"click", map[string]any{"target": "e1", "button": "top"}, `click: button "top": use left, right, middle`},
		{"navigate", map[string]any{}, "navigate needs a URL, or back, forward or reload"},
		{"type", map[string]any{"target": "e1", "text": "a", "credential": "pw"}, "type takes text or a credential, not both"},
		{"batch", map[string]any{"steps": []any{map[string]any{"tool": "fly"}}}, `batch step 1: unknown tool "fly"`},
		{"batch", map[string]any{"steps": []any{map[string]any{"tool": "click", "args": map[string]any{}}}}, `step 1: click needs a target: a selector such as role:button name:Save, a ref such as e12, or a point (at 120,340)`},
		{"dialog", map[string]any{}, `dialog: missing argument "accept"`},
	}
	for _, c := range cases {
		text, isErr := call(t, cs, c.tool, c.args)
		if !isErr || text != c.want {
			t.Errorf("%s %v: got (%q, isError=%v), want (%q, isError=true)", c.tool, c.args, text, isErr, c.want)
		}
	}
	if b := onlyBackend(t, s).browser(); b != nil {
		t.Errorf("a browser was started for calls that could not run")
	}
	// Errors that need the page: a selector syntax error points at the
	// column, a missing element lists the closest candidates.
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/app-login.html")})
	text, isErr := call(t, cs, "click", map[string]any{"target": "role:button name:"})
	if !isErr || !strings.Contains(text, "column") || strings.Contains(text, "\n") {
		t.Errorf("syntax error: got (%q, %v), want one line naming the column", text, isErr)
	}
	text, isErr = call(t, cs, "click", map[string]any{"target": `role:button name:"Sign on"`})
	if !isErr || !strings.Contains(text, `closest: button "Sign in"`) {
		t.Errorf("missing element: got (%q, %v), want the closest candidates", text, isErr)
	}
	text, isErr = call(t, cs, "evaluate", map[string]any{"script": "1+1"})
	if !isErr || !strings.Contains(text, "needs the sensitive tier") {
		t.Errorf("evaluate at the act tier: got (%q, %v), want a tier refusal", text, isErr)
	}
	// Unknown tools are protocol errors, and the server goes on.
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "fly"}); err == nil {
		t.Errorf("calling an unknown tool: no error")
	}
	if text, isErr := call(t, cs, "snapshot", nil); isErr || !strings.Contains(text, "Sign in") {
		t.Errorf("snapshot after bad calls: (%q, %v)", text, isErr)
	}
}

// TestCredential types a secret by name: it reaches the page, and no reply
// (diff, snapshot, extract, evaluate) ever shows its value.
func TestCredential(t *testing.T) {
	const secret = "hunter2-correct-horse"
	t.Setenv("CANOPY_SECRET_ACME_USER", secret)
	cs := connect(t, newServer(t, Options{Session: canopy.Config{Allow: action.Sensitive}}))
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/app-login.html")})
	var replies []string
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"type", map[string]any{"target": "role:textbox name:Email", "credential": "acme-user"}},
		{"snapshot", nil},
		{"extract", map[string]any{"format": "form"}},
		{"evaluate", map[string]any{"script": "document.getElementById('email').value"}},
	} {
		text, isErr := call(t, cs, c.tool, c.args)
		if isErr {
			t.Fatalf("%s: %s", c.tool, text)
		}
		replies = append(replies, text)
	}
	all := strings.Join(replies, "\n")
	if strings.Contains(all, secret) {
		t.Fatalf("a reply shows the secret:\n%s", all)
	}
	if !strings.Contains(replies[3], "«credential acme-user»") {
		t.Errorf("evaluate of the field: %q, want the credential's name in place of its value", replies[3])
	}
	text, isErr := call(t, cs, "type", map[string]any{"target": "role:textbox name:Email", "credential": "nope"})
	if !isErr || !strings.Contains(text, "CANOPY_SECRET_NOPE") {
		t.Errorf("unset credential: (%q, %v), want an error naming the variable", text, isErr)
	}
}

// TestScreenshotMarks returns a PNG with ref labels drawn, and leaves no
// trace in the page afterwards.
func TestScreenshotMarks(t *testing.T) {
	cs := connect(t, newServer(t, Options{}))
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/app-login.html")})
	ctx := context.Background()
	plain, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "screenshot", Arguments: map[string]any{}})
	if err != nil || plain.IsError {
		t.Fatalf("screenshot: %v %v", err, plain)
	}
	marked, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "screenshot", Arguments: map[string]any{"marks": true}})
	if err != nil || marked.IsError {
		t.Fatalf("screenshot marks: %v %v", err, marked)
	}
	a, b := imageOf(t, plain), imageOf(t, marked)
	if bytes.Equal(a, b) {
		t.Errorf("the marked screenshot is identical to the plain one")
	}
	if text, _ := call(t, cs, "snapshot", nil); strings.Contains(text, "canopy-marks") {
		t.Errorf("marks left in the page")
	}
	if after := imageOf(t, mustCall(t, cs, "screenshot", nil)); !bytes.Equal(a, after) {
		t.Errorf("the page looks different after a marked screenshot")
	}
}

func mustCall(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %v", tool, err, res)
	}
	return res
}

// imageOf returns the PNG of a result, checking it decodes.
func imageOf(t *testing.T, res *sdk.CallToolResult) []byte {
	t.Helper()
	for _, c := range res.Content {
		if ic, ok := c.(*sdk.ImageContent); ok {
			if ic.MIMEType != "image/png" {
				t.Errorf("image type %q", ic.MIMEType)
			}
			if _, err := png.Decode(bytes.NewReader(ic.Data)); err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
			return ic.Data
		}
	}
	t.Fatalf("no image in %v", res.Content)
	return nil
}

// TestRelaunch kills Chromium mid-session: the next call starts a new one
// and says page state was lost; the call after that has no note.
func TestRelaunch(t *testing.T) {
	s := newServer(t, Options{})
	cs := connect(t, s)
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/app-login.html")})
	b := onlyBackend(t, s).browser()
	if b == nil || b.PID() == 0 {
		t.Fatal("no launched browser")
	}
	if err := syscall.Kill(b.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The very next call, before the connection may have noticed.
	text, isErr := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/app-login.html")})
	if isErr || !strings.HasPrefix(text, "note: the browser had closed or crashed; started a new one (page state was lost)\n") ||
		!strings.Contains(text, `textbox "Email"`) {
		t.Fatalf("first call after the crash: (%q, %v)", text, isErr)
	}
	if text, isErr = call(t, cs, "snapshot", nil); isErr || strings.Contains(text, "note:") {
		t.Errorf("second call after the crash: (%q, %v)", text, isErr)
	}
	if onlyBackend(t, s).starts != 2 {
		t.Errorf("%d browser starts, want 2", onlyBackend(t, s).starts)
	}
}

// TestCDPReconnect attaches to a running browser: it defaults to the observe
// tier; when the browser goes away the call says so; when it is back on the
// same endpoint, the next call reconnects.
func TestCDPReconnect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := chromium.Start(ctx, chromium.Options{URL: testSite.URL("/app-login.html")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cs := connect(t, newServer(t, Options{Session: canopy.Config{Browser: browser.Options{CDP: p.URL}}}))
	if text, isErr := call(t, cs, "wait", map[string]any{"target": "role:textbox name:Email"}); isErr {
		t.Fatalf("wait over --cdp: %s", text)
	}
	if text, isErr := call(t, cs, "snapshot", nil); isErr || !strings.Contains(text, `textbox "Email"`) {
		t.Fatalf("snapshot over --cdp: (%q, %v)", text, isErr)
	}
	if text, isErr := call(t, cs, "click", map[string]any{"target": "role:checkbox"}); !isErr || !strings.Contains(text, "needs the act tier") {
		t.Errorf("click on an attached browser: (%q, %v), want the observe tier's refusal", text, isErr)
	}
	p.Close()
	text, isErr := call(t, cs, "snapshot", nil)
	if !isErr || !strings.Contains(text, "is not reachable (canopy reconnects on the next call once it is back)") {
		t.Errorf("snapshot with the browser gone: (%q, %v)", text, isErr)
	}
	back, err := chromium.Start(ctx, chromium.Options{Port: p.Port, URL: testSite.URL("/todo.html")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { back.Close() })
	text, isErr = call(t, cs, "wait", map[string]any{"text": "items left"})
	if isErr || !strings.HasPrefix(text, "note: reconnected to the browser at "+p.URL) {
		t.Errorf("the first call with the browser back: (%q, %v)", text, isErr)
	}
	if text, isErr = call(t, cs, "snapshot", nil); isErr || !strings.Contains(text, "todos") || strings.Contains(text, "note:") {
		t.Errorf("snapshot with the browser back: (%q, %v)", text, isErr)
	}
}
