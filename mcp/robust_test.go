package mcp

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy/browser"
)

// TestCancelledCalls: a wait whose timeout_ms would overflow any deadline,
// cancelled by the client, ends at once; so does a first call cancelled
// before it could start the browser. The session answers the next call
// promptly both times.
func TestCancelledCalls(t *testing.T) {
	cs := connect(t, newServer(t, Options{}))
	// Cancelled at once, before the browser could start.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "navigate", Arguments: map[string]any{"url": testSite.URL("/login.html")}}); err == nil {
		t.Errorf("a cancelled call succeeded")
	}
	start := time.Now()
	if text, isErr := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/login.html")}); isErr || !strings.Contains(text, `textbox "Email"`) {
		t.Fatalf("the call after an immediate cancel: (%q, %v)", text, isErr)
	}
	t.Logf("the call after the cancel took %v", time.Since(start))

	// A wait that asks for 10^13 ms, cancelled after a moment.
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start = time.Now()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{"text": "nope", "timeout_ms": 10000000000000}})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("the cancelled wait: %v after %v", err, time.Since(start))
	}
	start = time.Now()
	if text, isErr := call(t, cs, "snapshot", nil); isErr || !strings.Contains(text, `textbox "Email"`) {
		t.Errorf("the call after a cancelled wait: (%q, %v)", text, isErr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call after a cancelled wait took %v", d)
	}
}

// TestBoundedOutput: a page of 2 MB of text gives an extract of one
// window with a line saying how to read on; a 15 MB selector is quoted by a short
// prefix in its error; marks on a blank page are no script error. The
// session stays usable after each.
func TestBoundedOutput(t *testing.T) {
	cs := connect(t, newServer(t, Options{}))
	if text, isErr := call(t, cs, "screenshot", map[string]any{"marks": true}); isErr && strings.Contains(text, "TypeError") {
		t.Errorf("marks on a blank page: %s", text)
	}
	start := time.Now()
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/bigtext?kb=2048")})
	t.Logf("navigate: %v", time.Since(start))
	start = time.Now()
	text, isErr := call(t, cs, "extract", map[string]any{"format": "text"})
	t.Logf("extract: %v", time.Since(start))
	if isErr || len(text) > 300<<10 || !strings.HasSuffix(text, "«/page»\n… 1891016 more characters of text (extract text from 200000)\n") {
		t.Errorf("extract of 2 MB: isError %v, %d bytes, ends %q", isErr, len(text), text[max(0, len(text)-200):])
	}
	huge := "role:button name:" + strings.Repeat("x", 15<<20) + ")"
	start = time.Now()
	text, isErr = call(t, cs, "find", map[string]any{"target": huge})
	t.Logf("find: %v", time.Since(start))
	if len(text) > 4000 {
		t.Errorf("the 15 MB selector's error is %d bytes (isError %v): %q…", len(text), isErr, text[:200])
	}
	if text, isErr := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/login.html")}); isErr || !strings.Contains(text, `textbox "Email"`) {
		t.Errorf("after the big replies: (%q, %v)", text, isErr)
	}
}

// TestBigExtract: a page with a 50 MB text node is read a window at a time:
// each extract is bounded, ends with the step that reads on, and that step
// starts where the last window ended. The session stays usable.
func TestBigExtract(t *testing.T) {
	cs := connect(t, newServer(t, Options{}))
	start := time.Now()
	text, isErr := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/bigtext?kb=51200&node=1")})
	t.Logf("navigate: %v, %d bytes", time.Since(start), len(text))
	// Laying out 50 MB of text keeps the page's main thread busy for
	// seconds (longer under -race and a loaded machine): canopy says the
	// page does not answer, and a user asks again until it does.
	for isErr && (strings.Contains(text, "has not answered") || strings.Contains(text, "did not finish within the call's")) && time.Since(start) < 4*time.Minute {
		text, isErr = call(t, cs, "snapshot", nil)
	}
	if isErr || len(text) > 600<<10 {
		t.Fatalf("navigate: isError %v, %d bytes: %.300q", isErr, len(text), text)
	}
	start = time.Now()
	text, isErr = call(t, cs, "extract", map[string]any{"format": "text"})
	t.Logf("extract: %v, %d bytes", time.Since(start), len(text))
	m := regexp.MustCompile(`… ([0-9]+) more characters of text \(extract text from ([0-9]+)\)\n`).FindStringSubmatch(text)
	if isErr || m == nil || len(text) > 300<<10 || !strings.HasPrefix(text, "«page»\nBig text\n") {
		t.Fatalf("extract of 50 MB: isError %v, %d bytes, starts %.100q, ends %q", isErr, len(text), text, text[max(0, len(text)-200):])
	}
	from, _ := strconv.Atoi(m[2])
	left, _ := strconv.Atoi(m[1])
	if from < browser.ExtractWindow/2 || from+left < 51200*1000 {
		t.Errorf("the first window ends at %d with %d left", from, left)
	}
	// The last window: the text's end and the paragraph after it, no
	// line asking for more.
	text, isErr = call(t, cs, "extract", map[string]any{"format": "text", "from": from + left - 100})
	if isErr || strings.Contains(text, "more characters") || !strings.Contains(text, "The end.") || len(text) > 1000 {
		t.Errorf("the last window: (%q, %v)", text, isErr)
	}
	if text, isErr := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/login.html")}); isErr || !strings.Contains(text, `textbox "Email"`) {
		t.Errorf("after the big page: (%q, %v)", text, isErr)
	}
}

// TestCallCap: a call that outlasts the server's cap on a call ends in one
// worded line that says so, not a bare "context deadline exceeded".
func TestCallCap(t *testing.T) {
	cs := connect(t, newServer(t, Options{CallTimeout: time.Nanosecond}))
	text, isErr := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/slow.html")})
	if !isErr || !strings.Contains(text, "navigate did not finish within the call's") || strings.Contains(strings.TrimSpace(text), "\n") {
		t.Errorf("a call past its cap: (%q, %v), want one worded line", text, isErr)
	}
}
