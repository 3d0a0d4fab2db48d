package mcp

import (
	"strings"
	"testing"
	"time"
)

// TestStuckPage: a page whose script never yields makes the next reading
// fail in bounded time with one line that says how to recover; navigate
// stops the script and loads the next page, and the session goes on.
func TestStuckPage(t *testing.T) {
	cs := connect(t, newServer(t, Options{}))
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/spin.html")})
	call(t, cs, "click", map[string]any{"target": "id:spin"})
	start := time.Now()
	text, isErr := call(t, cs, "snapshot", nil)
	t.Logf("snapshot: %v", time.Since(start))
	if !isErr || !strings.Contains(text, "has not answered for") || time.Since(start) > 20*time.Second {
		t.Errorf("snapshot of a stuck page after %v: (%q, %v)", time.Since(start), text, isErr)
	}
	start = time.Now()
	text, isErr = call(t, cs, "navigate", map[string]any{"url": testSite.URL("/login.html")})
	t.Logf("navigate: %v", time.Since(start))
	if isErr || !strings.Contains(text, `textbox "Email"`) || time.Since(start) > 30*time.Second {
		t.Errorf("navigate away from a stuck page after %v: (%q, %v)", time.Since(start), text, isErr)
	}
	if text, isErr := call(t, cs, "click", map[string]any{"target": "role:checkbox"}); isErr || !strings.Contains(text, "checked") {
		t.Errorf("click after recovering: (%q, %v)", text, isErr)
	}

	// A click whose handler never returns ends too, and says why.
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/spin.html")})
	start = time.Now()
	text, isErr = call(t, cs, "click", map[string]any{"target": "id:block"})
	t.Logf("click: %v", time.Since(start))
	if !isErr || !strings.Contains(text, "has not answered for") || time.Since(start) > 30*time.Second {
		t.Errorf("a click that never returns, after %v: (%q, %v)", time.Since(start), text, isErr)
	}
	if text, isErr := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/login.html")}); isErr || !strings.Contains(text, `textbox "Email"`) {
		t.Errorf("navigate away after it: (%q, %v)", text, isErr)
	}
}
