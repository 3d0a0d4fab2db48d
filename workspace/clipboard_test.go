//go:build linux

package workspace_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/workspace"
)

// TestClipboard carries text from a page to mousepad and back through
// the X clipboard, with canopy's clipboard reading each copy on the way
// and its own text pasted in the page.
func TestClipboard(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w, err := workspace.Open(ctx, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	s := session.New(w, policy.New(action.Sensitive), session.Options{})
	do := func(steps string) string {
		t.Helper()
		as, err := action.ParseSteps(steps)
		if err != nil {
			t.Fatalf("parse %q: %v", steps, err)
		}
		var text strings.Builder
		for _, a := range as {
			r, err := s.Run(ctx, a)
			if err != nil {
				t.Fatalf("%s: %v", a, err)
			}
			text.WriteString(r.Text)
		}
		return text.String()
	}
	read := func(want string) {
		t.Helper()
		if got := do(`clipboard`); got != "«page»\n"+want+"\n«/page»\n" {
			t.Errorf("clipboard holds %q, want %q", got, want)
		}
	}
	const email = `role:textbox name:Email`
	const editor = `app:mousepad >> role:textbox`

	// Page → clipboard.
	do(`navigate "` + testSite.URL("/login.html") + `"`)
	do(`type ` + email + ` "copied in the page"; press ` + email + ` ctrl+a; press ` + email + ` ctrl+c`)
	read("copied in the page")

	// Clipboard → mousepad, and mousepad → clipboard.
	if r := do(`open_app mousepad "--disable-server"`); regexp.MustCompile(`(?m)^[+ ]+alert `).MatchString(r) {
		// An earlier mousepad on this desktop was stopped with unsaved
		// text: it asks whether to restore it first.
		do(`click app:mousepad >> role:alert >> role:button name:No`)
	}
	if got := do(`press ` + editor + ` ctrl+v`); !strings.Contains(got, "copied in the page") {
		t.Errorf("pasting in mousepad:\n%s", got)
	}
	do(`type ` + editor + ` "typed in mousepad" clear; press ` + editor + ` ctrl+a; press ` + editor + ` ctrl+c`)
	read("typed in mousepad")

	// Mousepad → page.
	if got := do(`press ` + email + ` ctrl+a; press ` + email + ` ctrl+v`); !strings.Contains(got, `→ "typed in mousepad"`) {
		t.Errorf("pasting mousepad's text in the page:\n%s", got)
	}

	// Canopy → page.
	if got := do(`clipboard "from canopy"`); got != "put 11 characters on the clipboard\n" {
		t.Errorf("write: %q", got)
	}
	if got := do(`press ` + email + ` ctrl+a; press ` + email + ` ctrl+v`); !strings.Contains(got, `value "typed in mousepad" → "from canopy"`) {
		t.Errorf("pasting canopy's text in the page:\n%s", got)
	}
	read("from canopy")
}
