package browser

import (
	"strings"
	"testing"
)

// TestSettleOnFlush: an action whose effect comes a task, an animation
// frame or a request later settles on a flush (a round trip that proved
// the page up to date, not the quiet window), and its reply holds the
// effect; a navigation of the page, which the browser takes over, settles
// on the quiet window.
func TestSettleOnFlush(t *testing.T) {
	e := newAct(t, "/widgets.html")
	for _, tc := range []struct{ name, handler, want string }{
		{"at once", `out.textContent = 'At once'`, `"At once"`},
		{"a task later", `setTimeout(() => { out.textContent = 'A task later' }, 0)`, `"A task later"`},
		{"a frame later", `requestAnimationFrame(() => { out.textContent = 'A frame later' })`, `"A frame later"`},
		{"two tasks later", `setTimeout(() => setTimeout(() => { out.textContent = 'Two tasks later' }, 0), 0)`, `"Two tasks later"`},
		{"a task and a frame later", `setTimeout(() => requestAnimationFrame(() => { out.textContent = 'Task, frame' }), 0)`, `"Task, frame"`},
		// The frame's navigation and load are followed as the frame's, not
		// handed to the quiet window as a navigation of the page's.
		{"a frame loaded", `const f = document.createElement('iframe'); f.src = '/frame-item.html?n=7'; document.body.append(f)`, `button "Like 7"`},
	} {
		js[bool](t, e.b, `document.getElementById('bottom').onclick = () => { `+tc.handler+` }; true`)
		r := e.must(`click role:button name:"At the bottom"`)
		if !strings.Contains(r.Text, tc.want) {
			t.Errorf("%s: the reply misses the change: %q %+v", tc.name, r.Text, r.Settled)
		}
		if !r.Settled.Flushed {
			t.Errorf("%s: settled on the quiet window or the cap: %+v", tc.name, r.Settled)
		}
	}

	f := newAct(t, "/failures.html")
	r := f.must(`click role:button name:Fine`)
	if !strings.Contains(r.Text, `"Status: saved"`) {
		t.Errorf("a request and its rendering: the reply misses the change: %q %+v", r.Text, r.Settled)
	}
	if !r.Settled.Flushed {
		t.Errorf("a request and its rendering: settled on the quiet window or the cap: %+v", r.Settled)
	}

	n := newAct(t, "/app-login.html")
	n.must(`type role:textbox name:Email "a@b.c"`)
	n.must(`type role:textbox name:Password "secret"`)
	r = n.must(`click role:button name:"Sign in"`)
	if !strings.HasPrefix(r.Text, "navigated ") {
		t.Errorf("sign in: no navigation in the reply:\n%s", r.Text)
	}
	if r.Settled.Flushed {
		t.Errorf("a navigation settled on a flush: %+v", r.Settled)
	}
}
