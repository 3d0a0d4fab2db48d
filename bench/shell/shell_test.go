package main

import (
	"context"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/tokens"
)

// TestBench plays every task of the browser once on each surface: each
// plan runs with its checks (only what earlier replies showed) and its
// task succeeds. go run ./bench/shell runs the full benchmark.
func TestBench(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	var out strings.Builder
	if err := run(context.Background(), options{runs: 1}, &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"article", "login", "nav-links", "total", "download: needs the desktop"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}

// TestCheckSeen: a call that names a ref, a path segment or a selector's
// name that no earlier reply showed is refused before it is sent; what
// the replies showed, or the task gives, passes.
func TestCheckSeen(t *testing.T) {
	tok, err := tokens.New()
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{tok: tok, given: []string{"http://127.0.0.1:1/e9.html", "ada@example.com"}}
	a.replies = []string{"form \"Login\" e1\n  textbox \"Email\" e2 required\n  button \"Sign in\" e5\n"}
	for _, c := range []struct {
		tool string
		args map[string]any
		ok   bool
	}{
		{"type", map[string]any{"target": "e2", "text": "ada@example.com"}, true},
		{"type", map[string]any{"target": "e3", "text": "x"}, false},
		{"click", map[string]any{"target": `role:button name:"Sign in"`}, true},
		{"click", map[string]any{"target": `role:button name:"Sign up"`}, false},
		{"click", map[string]any{"target": "role:checkbox"}, true},
		{"navigate", map[string]any{"url": "http://127.0.0.1:1/e9.html"}, true},
		{"batch", map[string]any{"steps": []step{{"click", map[string]any{"target": "e7"}}}}, false},
		{"shell", map[string]any{"command": `cd form:Login; type textbox:Email "ada@example.com"; click 'button:Sign in'`}, true},
		{"shell", map[string]any{"command": `cd form:Login; check 'checkbox:Remember me'`}, false},
		{"shell", map[string]any{"command": `open "http://127.0.0.1:1/e9.html" | head -n 0; ls form:Signup`}, false},
	} {
		err := a.checkSeen(c.tool, c.args)
		if (err == nil) != c.ok {
			t.Errorf("%s %v: error %v, want ok=%v", c.tool, c.args, err, c.ok)
		}
	}
}
