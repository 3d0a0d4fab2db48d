package browser

import (
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
)

// TestClipboard reaches a headless browser's clipboard through the page:
// written text is what the page's Ctrl+V pastes, what the page copies
// with Ctrl+C is what reading finds, the page's clipboard-read permission
// is as it was after, and reading needs the sensitive tier.
func TestClipboard(t *testing.T) {
	e := newActTier(t, "/login.html", action.Sensitive)
	r := e.must(`clipboard "from canopy ✓"`)
	if r.Text != "put 13 characters on the clipboard\n" {
		t.Errorf("write: %q", r.Text)
	}
	r = e.must(`click role:textbox name:Email; press ctrl+v`)
	wantContains(t, "paste into the page", r.Text, `value "" → "from canopy ✓"`)

	e.must(`type role:textbox name:Email "copied in the page" clear; press ctrl+a; press ctrl+c`)
	r = e.must(`clipboard`)
	if r.Text != "«page»\ncopied in the page\n«/page»\n" {
		t.Errorf("read: %q", r.Text)
	}
	if r := e.must(`evaluate "navigator.permissions.query({name: 'clipboard-read'}).then(s => s.state)"`); !strings.Contains(r.Text, `"prompt"`) {
		t.Errorf("the page's clipboard-read permission after reading: %s, want prompt", r.Text)
	}

	act := &actEnv{t: t, b: e.b, s: newActSession(e.b, action.Act)}
	if msg := act.fails(`clipboard`); !strings.Contains(msg, "needs the sensitive tier") {
		t.Errorf("reading at act: %s", msg)
	}
	act.must(`clipboard "at act"`)

	e.must(`navigate "about:blank"`)
	if msg := e.fails(`clipboard`); !strings.Contains(msg, "not https or local") {
		t.Errorf("reading from about:blank: %s", msg)
	}
}
