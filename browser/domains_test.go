package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// These tests hold the browser to --domains: the primary site
// (127.0.0.1) is allowed, the cross site (127.0.0.2) is not, and the cross
// site's hit counter proves that a refused request never left the browser.

// newDomainsAct launches a browser that enforces patterns (--domains), with
// an act-tier session under the same rule, and loads path on the primary
// site through the session, returning the load's reply (its own refusals
// are in it). With intercept false the browser loads anything, as one
// canopy attached to might have, while the policy still holds the list.
func newDomainsAct(t *testing.T, path string, intercept bool, patterns ...string) (*actEnv, session.Reply) {
	t.Helper()
	pol, err := policy.Open(action.Act, policy.Domains(patterns...))
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{}
	if intercept {
		opt.Domains = pol.Domains()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := New(ctx, opt)
	if err != nil {
		t.Fatalf("launch browser: %v (install Chromium: apt-get install chromium)", err)
	}
	t.Cleanup(func() { b.Close() })
	e := &actEnv{t: t, b: b, s: session.New(b.Source(), pol, session.Options{})}
	return e, e.must("navigate " + testSite.URL(path))
}

// crossPaths are the cross-site pages the tests send the browser to.
var crossPaths = []string{"/domains-frame.html", "/landing/link", "/landing/redirect", "/landing/get", "/landing/post",
	"/landing/popup", "/landing/nav", "/landing/tab", "/landing/via", "/landing/tabvia", "/landing/direct",
	"/landing/prefetch", "/landing/prerender"}

// crossHits counts, from the moment it is made, the requests of the
// cross site (other tests load its pages too).
type crossHits map[string]int

func countCross() crossHits {
	c := crossHits{}
	for _, p := range crossPaths {
		c[p] = testSite.Hits(testSite.CrossURL(p))
	}
	return c
}

// none fails the test when the cross site served path since c was made.
func (c crossHits) none(t *testing.T, path string) {
	t.Helper()
	base, ok := c[path]
	if !ok {
		t.Fatalf("%s is not in crossPaths", path)
	}
	if n := testSite.Hits(testSite.CrossURL(path)) - base; n != 0 {
		t.Errorf("the refused site served %s %d time(s)", path, n)
	}
}

// refusedErr checks that err is a refusal (policy.ErrDenied) that says
// each of subs.
// refNumRE is a ref ending a node's line in an error.
var refNumRE = regexp.MustCompile(` e[0-9]+:`)

func refusedErr(t *testing.T, what string, err error, subs ...string) {
	t.Helper()
	if !errors.Is(err, policy.ErrDenied) {
		t.Errorf("%s: %v, want a refusal (ErrDenied)", what, err)
		return
	}
	wantContains(t, what, stable(err.Error()), subs...)
}

// TestDomainsRefusesEveryWayOut: a cross-site frame, a link, a redirect, a
// GET and a POST form, and a popup the agent's click opens, all to the
// refused site: each is refused before it leaves the browser, each is an
// outcome line of the action, and the session goes on.
func TestDomainsRefusesEveryWayOut(t *testing.T) {
	hits := countCross()
	e, r := newDomainsAct(t, "/domains.html", true, "127.0.0.1")
	var transcript strings.Builder
	note := func(step string, r session.Reply, err error) {
		// Outcome lines only (the browser's own error page text is
		// Chromium's), sorted: a popup's tab and its refusal are
		// reported by two listeners.
		outs := slices.Clone(r.Outcomes)
		slices.Sort(outs)
		fmt.Fprintf(&transcript, "> %s\n", stable(step))
		for _, o := range outs {
			fmt.Fprintf(&transcript, "%s\n", stable(o))
		}
		if err != nil {
			// Ref numbers go on from the highest shown, which depends on
			// how the popup's tab was read: the transcript shows none.
			fmt.Fprintf(&transcript, "error: %s\n", refNumRE.ReplaceAllString(stable(err.Error()), " eN:"))
		}
	}
	note("navigate /domains.html", r, nil)
	wantContains(t, "the page's load", stable(r.Text), "refused frame 127.0.0.2:PORT/domains-frame.html (not allowed by --domains)")
	hits.none(t, "/domains-frame.html")

	redirects := testSite.Hits(testSite.URL("/redirect"))
	back := func() {
		t.Helper()
		e.must("navigate " + testSite.URL("/domains.html"))
	}
	for _, tc := range []struct {
		step, path, line string
	}{
		{`click role:link name:"Cross link"`, "/landing/link", "refused navigation to 127.0.0.2:PORT/landing/link (not allowed by --domains)"},
		{`click role:link name:"Redirect link"`, "/landing/redirect", "refused redirect to 127.0.0.2:PORT/landing/redirect (not allowed by --domains)"},
		{`type role:textbox name:Query "hello" submit`, "/landing/get", "refused navigation to 127.0.0.2:PORT/landing/get?q=hello (not allowed by --domains)"},
		{`click role:button name:Send`, "/landing/post", "refused POST navigation to 127.0.0.2:PORT/landing/post (not allowed by --domains)"},
	} {
		back()
		r, err := e.run(tc.step)
		note(tc.step, r, err)
		if err != nil {
			t.Errorf("%s: %v", tc.step, err)
			continue
		}
		wantContains(t, tc.step, stable(r.Text), tc.line)
		wantNot(t, tc.step, r.Text, "navigated ")
		hits.none(t, tc.path)
		// The tab shows the browser's error page for the refused URL:
		// acting in it is acting in a page of the refused site.
		if tc.path == "/landing/link" {
			_, err := e.run(`click role:button name:Reload`)
			note(`click role:button name:Reload`, session.Reply{}, err)
			refusedErr(t, "clicking Reload on the error page", err, "the target is inside a page from 127.0.0.2:PORT/landing/link", "not in --domains (127.0.0.1)")
		}
	}
	if n := testSite.Hits(testSite.URL("/redirect")) - redirects; n == 0 {
		t.Error("the redirect link never reached the allowed site")
	}

	// A popup the agent's click opens: the tab opens, its page does not.
	back()
	r = e.must(`click role:button name:"Open cross popup"`)
	note(`click role:button name:"Open cross popup"`, r, nil)
	wantContains(t, "the popup", stable(r.Text), "opened tab 2", "refused navigation to 127.0.0.2:PORT/landing/popup (not allowed by --domains)")
	hits.none(t, "/landing/popup")
	e.must(`tabs close 2`)

	// Acting on the refused frame is refused; around it, the page works.
	_, err := e.run(`click role:iframe name:"Cross frame"`)
	note(`click role:iframe name:"Cross frame"`, session.Reply{}, err)
	refusedErr(t, "clicking the refused frame", err, `click iframe "Cross frame" e`, `: the target is inside a frame from 127.0.0.2:PORT/domains-frame.html`)
	r = e.must(`click role:link name:"Same-site link"`)
	note(`click role:link name:"Same-site link"`, r, nil)
	if !r.Replaced || !strings.HasPrefix(r.Text, "navigated /domains.html → /landing/same") {
		t.Errorf("the allowed link (replaced=%v):\n%s", r.Replaced, r.Text)
	}
	goldenAct(t, "domains-refusals", transcript.String())
}

// TestDomainsNavigate: navigate and tabs new to the refused site are
// refused before anything loads; a navigate the allowed site redirects to
// the refused one answers with a refusal that names the redirect (it does
// not hang); a new tab redirected there is an outcome line; javascript:
// and file: stay refused below sensitive; the session goes on.
func TestDomainsNavigate(t *testing.T) {
	hits := countCross()
	e, _ := newDomainsAct(t, "/login.html", true, "127.0.0.1")

	_, err := e.run("navigate " + testSite.CrossURL("/landing/nav"))
	refusedErr(t, "navigate to the refused site", err, "navigate http://127.0.0.2:PORT/landing/nav: 127.0.0.2:PORT is not in --domains (127.0.0.1)")
	_, err = e.run(`tabs new "` + testSite.CrossURL("/landing/tab") + `"`)
	refusedErr(t, "tabs new on the refused site", err, "127.0.0.2:PORT is not in --domains (127.0.0.1)")
	hits.none(t, "/landing/nav")
	hits.none(t, "/landing/tab")

	via := testSite.URL("/redirect?to=" + url.QueryEscape(testSite.CrossURL("/landing/via")))
	_, err = e.run("navigate " + via)
	refusedErr(t, "navigate redirected to the refused site", err,
		"redirected to 127.0.0.2:PORT/landing/via: 127.0.0.2:PORT is not in --domains (127.0.0.1)")
	hits.none(t, "/landing/via")

	tabVia := testSite.URL("/redirect?to=" + url.QueryEscape(testSite.CrossURL("/landing/tabvia")))
	r := e.must(`tabs new "` + tabVia + `"`)
	wantContains(t, "tabs new redirected to the refused site", stable(r.Text), "refused redirect to 127.0.0.2:PORT/landing/tabvia (not allowed by --domains)")
	hits.none(t, "/landing/tabvia")
	e.must("tabs close")

	for _, u := range []string{"javascript:alert(1)", "file:///etc/passwd"} {
		_, err := e.run("navigate " + u)
		refusedErr(t, "navigate "+u, err, "needs the sensitive tier")
	}

	// The browser refuses on its own too, without the policy (a library
	// caller that loads a URL directly).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = e.b.Navigate(ctx, testSite.CrossURL("/landing/direct"), 0)
	refusedErr(t, "Browser.Navigate to the refused site", err, "127.0.0.2:PORT/landing/direct: 127.0.0.2:PORT is not in --domains (127.0.0.1)")
	hits.none(t, "/landing/direct")

	r = e.must("navigate " + testSite.URL("/login.html"))
	wantContains(t, "the session after the refusals", r.Text, `heading "Sign in to Acme"`)
}

// TestDomainsAllowedFrames: with both sites allowed, interception lets
// every document through, cross-site frames nested in cross-site frames
// included, and the agent acts inside them; a list of refusals only
// refuses what it names.
func TestDomainsAllowedFrames(t *testing.T) {
	e, r := newDomainsAct(t, "/cross.html", true, "127.0.0.1", "127.0.0.2")
	wantContains(t, "cross.html", r.Text, "MARKER-OOPIF", "MARKER-OOPIF-NESTED", `button "Cross button"`)
	wantNot(t, "cross.html", r.Text, "refused")
	e.must("navigate " + testSite.URL("/domains.html"))
	r = e.must(`click role:button name:"Frame button"`)
	wantContains(t, "clicking inside the allowed cross-site frame", r.Text, "Frame clicked")

	d, r := newDomainsAct(t, "/domains.html", true, "!127.0.0.2")
	wantContains(t, "a deny-only list", stable(r.Text), "refused frame 127.0.0.2:PORT/domains-frame.html (not allowed by --domains)")
	r = d.must(`click role:link name:"Same-site link"`)
	wantContains(t, "a deny-only list, same site", r.Text, "navigated /domains.html → /landing/same")
}

// TestDomainsActInsideRefusedFrame: a page whose cross-site frame loaded
// anyway (a browser canopy attached to, not intercepting): acting inside
// the frame is refused and nothing happens there; the rest of the page
// works.
func TestDomainsActInsideRefusedFrame(t *testing.T) {
	e, r := newDomainsAct(t, "/domains.html", false, "127.0.0.1")
	wantContains(t, "the page", r.Text, "MARKER-DOMAINS-FRAME", `button "Frame button"`)
	_, err := e.run(`click role:button name:"Frame button"`)
	refusedErr(t, "clicking in the refused frame", err,
		`click button "Frame button"`, "the target is inside a frame from 127.0.0.2:PORT/domains-frame.html: 127.0.0.2:PORT is not in --domains (127.0.0.1)")
	r = e.must(`type role:textbox name:Query "hello"`)
	wantContains(t, "typing outside the frame", r.Text, `value "" → "hello"`)
	wantNot(t, "typing outside the frame", r.Text, "Frame clicked")
	r = e.must(`find role:button name:"Frame button"`)
	wantContains(t, "the frame's button after the refusal", r.Text, "Frame button")
}
