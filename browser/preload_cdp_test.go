package browser_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/chromium"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// TestSpeculationRefusedAttached: in a browser canopy attached to (--cdp),
// whose profile prefetches and prerenders as a user's does, a page's
// speculation rules — inline, inserted by a script, written by
// document.write, or named by the Speculation-Rules header — get the
// browser to no host --domains refuses: the refused origin serves
// nothing, no script of it runs, and a click on each link is refused with
// its outcome line. The same browser, before canopy came, prefetched and
// prerendered such a page (the control: what the guard stops is real).
func TestSpeculationRefusedAttached(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	s, err := site.Serve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o, err := site.ServeOrigin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	page := func(how, tag string) string {
		q := url.Values{
			"prefetch":  {o.URL("/pf-" + tag), s.CrossURL("/landing/prefetch-" + tag)},
			"prerender": {o.URL("/pre-" + tag), s.CrossURL("/landing/prerender-" + tag)},
			"how":       {how},
		}
		return s.URL("/speculation.html?" + q.Encode())
	}

	// The control: the user's browser, alone, loads such a page.
	p, err := chromium.Start(ctx, chromium.Options{URL: page("inline", "control")})
	if err != nil {
		t.Fatalf("start chromium: %v (install Chromium: apt-get install chromium)", err)
	}
	defer p.Close()
	wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
	for _, got := range []string{"/pf-control", "/ran?/pre-control"} {
		if err := o.Wait(wctx, got); err != nil {
			t.Fatalf("the control: %v", err)
		}
	}
	wcancel()

	pol, err := policy.Open(action.Act, policy.Domains(strings.TrimPrefix(s.URL(""), "http://")))
	if err != nil {
		t.Fatal(err)
	}
	b, err := browser.New(ctx, browser.Options{CDP: p.URL, Domains: pol.Domains()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sess := session.New(b.Source(), pol, session.Options{})
	run := func(a action.Action) session.Reply {
		t.Helper()
		r, err := sess.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		return r
	}
	ports := regexp.MustCompile(`127\.0\.0\.([12]):\d+`)
	for _, how := range []string{"inline", "script", "write", "header"} {
		u := page(how, how)
		run(action.Action{Kind: action.Navigate, URL: u})
		for _, link := range []string{"Prefetched 1", "Prefetched 2", "Prerendered 1", "Prerendered 2"} {
			r := run(action.Action{Kind: action.Click, Target: fmt.Sprintf("role:link name:%q", link)})
			text := ports.ReplaceAllString(r.Text, "127.0.0.$1:PORT")
			if !strings.Contains(text, "refused navigation to 127.0.0.") || strings.Contains(text, "navigated ") {
				t.Errorf("%s rules, click %s:\n%s", how, link, text)
			}
			run(action.Action{Kind: action.Navigate, URL: u})
		}
		for _, path := range []string{"/landing/prefetch-" + how, "/landing/prerender-" + how} {
			if n := s.Hits(s.CrossURL(path)); n > 0 {
				t.Errorf("%s rules: the refused site served %s %d time(s)", how, path, n)
			}
		}
	}
	// The control's pages may still ask for what they need (an icon):
	// only the requests of the pages loaded under canopy count.
	for _, got := range o.Seen() {
		if !strings.Contains(got, "control") && got != "/favicon.ico" {
			t.Errorf("the refused origin served %s", got)
		}
	}
}
