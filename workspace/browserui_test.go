//go:build linux

package workspace_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/chromiumui"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/workspace"
)

// addressBar finds the browser's address bar by its place, not its label
// (which is in the browser's language).
const addressBar = "role:toolbar >> role:textbox"

// TestAddressBarNeedsSensitive: on the desktop, typing into Chromium's
// address bar would run javascript: in the page and load file: and chrome:
// pages and hosts --domains refuses. At act, every way of putting text or
// keys there is refused with one line naming the rule — typing, setting
// its value, Enter or a paste while it has the focus — and nothing loads:
// the page keeps its title, the refused site serves nothing. Keys that only
// leave the field pass, and the page's own fields take text as before. At
// the sensitive tier the field takes text, and --domains still holds: a
// chrome: or data: page typed there is stopped or left, a refused host is
// refused by the interception; each is an outcome line.
func TestAddressBarNeedsSensitive(t *testing.T) {
	chromiumui.Relies(t, chromiumui.AddressBar)
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	primary := strings.TrimPrefix(testSite.URL(""), "http://")
	domains := policy.Domains(primary)
	act, err := policy.Open(action.Act, domains)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workspace.Open(ctx, browser.Options{Domains: act.Domains()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s := session.New(w, act, session.Options{})
	run := func(s *session.Session, a action.Action) (session.Reply, error) {
		t.Helper()
		r, err := s.Run(ctx, a)
		t.Logf("%s:\n%s(err: %v)", a, r.Text, err)
		return r, err
	}
	must := func(s *session.Session, a action.Action) session.Reply {
		t.Helper()
		r, err := run(s, a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		return r
	}
	refused := func(a action.Action, want string) {
		t.Helper()
		_, err := run(s, a)
		if !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "needs the sensitive tier; use navigate (this session allows act) (--allow sensitive)") {
			t.Errorf("%s: %v, want a refusal with %q", a, err, want)
		}
	}
	title := func() string {
		t.Helper()
		r := must(s, action.Action{Kind: action.Tabs, Nav: "list"})
		return r.Text
	}
	cross := testSite.CrossURL("/landing/omnibox")
	crossHits := testSite.Hits(cross)

	must(s, action.Action{Kind: action.Navigate, URL: testSite.URL("/login.html")})
	before := title()
	for _, u := range []string{"javascript:document.title='pwned'", "file:///etc/passwd", "chrome://version", cross} {
		refused(action.Action{Kind: action.Type, Target: addressBar, Text: u, Submit: true}, "typing into the browser's address bar")
	}
	refused(action.Action{Kind: action.SetValue, Target: addressBar, Text: "chrome://version"}, "setting the value of the browser's address bar")
	refused(action.Action{Kind: action.Press, Target: addressBar, Keys: "Enter"}, "pressing keys in the browser's address bar")

	// Keys with no target go where the focus is.
	must(s, action.Action{Kind: action.Click, Target: `role:textbox name:Email`})
	must(s, action.Action{Kind: action.Press, Keys: "ctrl+l"}) // from the page: the focus moves to the bar
	refused(action.Action{Kind: action.Press, Keys: "ctrl+v"}, "pressing keys in the browser's address bar")
	refused(action.Action{Kind: action.Press, Keys: "Enter"}, "pressing keys in the browser's address bar")
	must(s, action.Action{Kind: action.Press, Keys: "Escape"})
	must(s, action.Action{Kind: action.Click, Target: `role:textbox name:Email`})
	r := must(s, action.Action{Kind: action.Type, Target: `role:textbox name:Email`, Text: "a@b.c"})
	if !strings.Contains(r.Text, `"a@b.c"`) {
		t.Errorf("typing into the page's field:\n%s", r.Text)
	}
	if got := title(); got != before {
		t.Errorf("the tab changed under the refusals: %q, was %q", got, before)
	}

	// The sensitive tier: the bar takes text; --domains still holds.
	sens, err := policy.Open(action.Sensitive, domains)
	if err != nil {
		t.Fatal(err)
	}
	s2 := session.New(w, sens, session.Options{})
	ports := regexp.MustCompile(`127\.0\.0\.([12]):\d+`)
	for _, tc := range []struct{ url, line string }{
		{"chrome://version", "refused navigation to chrome://version/ (chrome: URLs are not in --domains (127.0.0.1:PORT))"},
		{"chrome://settings", "refused navigation to chrome://settings/ (chrome: URLs are not in --domains"},
		{"data:text/html,<h1>typed</h1>", "refused navigation to data:text/html,<h1>typed</h1> (data: URLs are not in --domains"},
		{cross, "refused navigation to 127.0.0.2:PORT/landing/omnibox (not allowed by --domains)"},
	} {
		r := must(s2, action.Action{Kind: action.Type, Target: addressBar, Text: tc.url, Clear: true, Submit: true})
		if got := ports.ReplaceAllString(r.Text, "127.0.0.$1:PORT"); !strings.Contains(got, tc.line) {
			t.Errorf("typed %s at sensitive: the reply lacks %q:\n%s", tc.url, tc.line, got)
		}
		tabs := must(s2, action.Action{Kind: action.Tabs, Nav: "list"}).Text
		if strings.Contains(tabs, "chrome:") || strings.Contains(tabs, "data:") {
			t.Errorf("typed %s at sensitive: the tab shows it:\n%s", tc.url, tabs)
		}
		must(s2, action.Action{Kind: action.Navigate, URL: testSite.URL("/login.html")})
	}
	if n := testSite.Hits(cross) - crossHits; n != 0 {
		t.Errorf("the refused site served /landing/omnibox %d time(s)", n)
	}
}
