package browser

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
)

// TestActWait: text that appears after a click (in a batch), a URL, quiet,
// and a timeout.
func TestActWait(t *testing.T) {
	e := newAct(t, "/widgets.html")
	js[bool](t, e.b, `document.getElementById('bottom').onclick = () => setTimeout(() => { out.textContent = 'Late text'; }, 400); true`)
	r := e.must(`click role:button name:"At the bottom"; wait text "Late text"`)
	if got := e.out(); got != "Late text" {
		t.Errorf("#out = %q", got)
	}
	wantContains(t, "batch with wait", r.Text, `"Late text"`)
	goldenAct(t, "wait-text-batch", r.Text)

	js[bool](t, e.b, `setTimeout(() => { location.href = '/todo.html'; }, 300); true`)
	r = e.must(`wait url "/todo.html"`)
	if got := js[string](t, e.b, `location.pathname`); got != "/todo.html" {
		t.Errorf("wait url returned on %s", got)
	}
	if !regexp.MustCompile(`^waited \S+ for URL /todo.html\nnavigated /widgets.html → /todo.html\ntab 1 "Todos"`).MatchString(r.Text) {
		t.Errorf("wait url reply:\n%s", r.Text)
	}

	// The page keeps changing for longer than one settle's cap: 30 ticks,
	// each when a slow request ends, the next request always sent before
	// the last one ends, so there is work in flight (and no quiet window)
	// from the first request to after the last tick, however busy the
	// machine. A timer-driven page would not do: on a loaded machine its
	// ticks come late, and a gap of a quiet window is a quiet page.
	js[bool](t, e.b, `window.ticks = 0; window.done = false;
		(async () => {
			const slow = i => fetch('/api/slow?ms=120&i=' + i).then(r => r.text());
			let prev = slow(0);
			for (let i = 1; i <= 30; i++) {
				const next = slow(i);
				await prev;
				document.getElementById('left').textContent = 'tick ' + (++ticks);
				prev = next;
			}
			done = true;
			await prev;
		})(); true`)
	r = e.must(`wait quiet`)
	if !js[bool](t, e.b, `done`) {
		t.Errorf("wait quiet returned while the page was still changing (tick %d)", js[int](t, e.b, `ticks`))
	}
	if !strings.HasPrefix(r.Text, "waited ") || !strings.Contains(r.Text, "for the page to be quiet") {
		t.Errorf("wait quiet reply:\n%s", r.Text)
	}
	wantContains(t, "wait quiet reply", r.Text, `"tick 30"`)

	start := time.Now()
	_, err := e.do(action.Action{Kind: action.Wait, Text: "Never shown", Timeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not happen") || !strings.Contains(err.Error(), "Never shown") {
		t.Errorf("wait timeout: err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a 300ms wait took %v", d)
	}
}
