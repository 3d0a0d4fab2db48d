package mcp

import (
	"strings"
	"testing"
	"time"
)

// TestDialogStorm: a page that opens alert after alert, from timers or
// from a loop that never yields, gets its first few answered by the agent;
// past the storm's threshold canopy stops the script and dismisses the
// rest itself, says so once, and the page's tools work again. navigate
// works while a dialog is open: the tab goes, dialog and all.
func TestDialogStorm(t *testing.T) {
	cs := connect(t, newServer(t, Options{}))
	for _, button := range []string{"timers", "loop"} {
		t.Run(button, func(t *testing.T) {
			call(t, cs, "navigate", map[string]any{"url": testSite.URL("/storm.html")})
			text, _ := call(t, cs, "click", map[string]any{"target": "id:" + button})
			if !strings.Contains(text, "(answer: dialog accept)") {
				t.Fatalf("click: %s", text)
			}
			var all strings.Builder
			for range 5 { // browser.stormDialogs
				text, _ = call(t, cs, "dialog", map[string]any{"accept": true})
				all.WriteString(text)
			}
			if !strings.Contains(all.String(), "and stopped the script opening dialogs: the page opened") {
				t.Errorf("no storm line after 5 answers:\n%s", all.String())
			}
			start := time.Now()
			text, isErr := call(t, cs, "snapshot", nil)
			if isErr || !strings.Contains(text, `heading "Storm"`) {
				t.Errorf("snapshot after the storm (%v): (%q, %v)", time.Since(start), text, isErr)
			}
			text, isErr = call(t, cs, "navigate", map[string]any{"url": testSite.URL("/login.html")})
			if isErr || !strings.Contains(text, `textbox "Email"`) {
				t.Errorf("navigate away: (%q, %v)", text, isErr)
			}
		})
	}
	// A dialog left open does not stop navigate: the tab goes, dialog and
	// all, and the page opens in a new one; there is one tab after.
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/storm.html")})
	call(t, cs, "click", map[string]any{"target": "id:timers"})
	text, isErr := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/login.html")})
	if isErr || !strings.Contains(text, `closed the tab whose page had alert "again" open`) || !strings.Contains(text, `textbox "Email"`) {
		t.Errorf("navigate with an alert open: (%q, %v)", text, isErr)
	}
	if text, _ := call(t, cs, "tabs", map[string]any{"action": "list"}); strings.Count(text, "\n") != 1 || !strings.Contains(text, "login") {
		t.Errorf("tabs after: %q", text)
	}
}
