package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// domainSchemesPage links to external schemes in every way a page can:
// a link, one whose page handler keeps the click from bubbling (a watch
// listening late would miss it), an app's scheme, an SVG link, a form, a
// middle click's new tab, and a script.
const domainSchemesPage = `<!doctype html><title>Schemes</title>
<a href="mailto:someone@example.com">Mail us</a>
<a href="tel:+15551234" onclick="event.stopPropagation()">Call us</a>
<a href="myapp://thing/1">Open in My App</a>
<svg width="120" height="30"><a href="x-foo:svg"><text x="0" y="20">SVG link</text></a></svg>
<form action="myapp://form"><button>Send to My App</button></form>
<button onclick="document.getElementById('out').textContent = 'count ' + (++window.n)">Count</button>
<button onclick="location.href = 'mailto:scripted@example.com'">Scripted</button>
<p id="out">none</p>
<script>window.n = 0</script>`

// newSchemesDomains launches a browser held to patterns (--domains), with
// an act-tier session under the same rule, on domainSchemesPage.
func newSchemesDomains(t *testing.T, patterns ...string) *actEnv {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, domainSchemesPage)
	}))
	t.Cleanup(srv.Close)
	pol, err := policy.Open(action.Act, policy.Domains(patterns...))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := New(ctx, Options{Domains: pol.Domains()})
	if err != nil {
		t.Fatalf("launch browser: %v (install Chromium: apt-get install chromium)", err)
	}
	t.Cleanup(func() { b.Close() })
	e := &actEnv{t: t, b: b, s: session.New(b.Source(), pol, session.Options{})}
	e.must(`navigate "` + srv.URL + `/"`)
	return e
}

// TestDomainsExternalSchemes: under --domains, links and forms to external
// schemes the list does not name are refused before the browser sees them
// (no request, nothing handed to the desktop), each with an outcome line
// that names the rule and the pattern that would allow it, under an
// allowing list and a refusing one alike; navigate is refused too. A
// scheme pattern (mailto:) lets its links through to the desktop. A
// script's navigation is not stopped (no link or form to judge): its line
// says so.
func TestDomainsExternalSchemes(t *testing.T) {
	opened := fakeDesktop(t)
	notHanded := []string{"handed to the desktop", "the browser asks", "headless Chromium"}
	for _, list := range [][]string{{"127.0.0.1"}, {"!127.0.0.2"}} {
		e := newSchemesDomains(t, list...)
		for _, tc := range []struct{ step, line string }{
			{`click role:link name:"Mail us"`, "refused mailto: link mailto:someone@example.com (mailto: links open another application, which --domains allows only for the schemes it names (add mailto: to it))"},
			{`click role:link name:"Call us"`, "refused tel: link tel:+15551234 (tel: links open another application"},
			{`click role:link name:"Open in My App"`, "refused myapp: link myapp://thing/1 (myapp: links open another application"},
			{`click role:link name:"SVG link"`, "refused x-foo: link x-foo:svg (x-foo: links open another application"},
			{`click role:link name:"Open in My App" middle`, "refused myapp: link myapp://thing/1"},
			{`click role:button name:"Send to My App"`, "refused myapp: link myapp://form"},
		} {
			r := e.must(tc.step)
			wantContains(t, fmt.Sprintf("%q: %s", list, tc.step), r.Text, tc.line)
			wantNot(t, fmt.Sprintf("%q: %s", list, tc.step), r.Text, notHanded...)
		}
		r := e.must(`click role:button name:Count`)
		wantContains(t, "a click after the refused links", r.Text, `"count 1"`)
		_, err := e.run(`navigate "mailto:other@example.com"`)
		refusedErr(t, "navigate mailto:", err, "navigate mailto:other@example.com: mailto: links open another application")
		if _, err := os.Stat(opened); err == nil {
			t.Errorf("%q: the desktop's mail app was opened", list)
		}
	}

	// The scheme named, its links go to the desktop.
	e := newSchemesDomains(t, "127.0.0.1", "mailto:")
	r := e.must(`click role:link name:"Mail us"`)
	wantContains(t, "mailto: allowed", r.Text, "mailto: link handed to the desktop: mailto:someone@example.com opens with Fake Mail (fakemail.desktop)")
	if _, err := exec.LookPath("xdg-open"); err == nil {
		if got := waitFileText(t, opened, 10*time.Second); got != "mailto:someone@example.com" {
			t.Errorf("Fake Mail was opened with %q", got)
		}
	}
	r = e.must(`click role:link name:"Call us"`)
	wantContains(t, "tel: beside mailto:", r.Text, "refused tel: link tel:+15551234")

	// A script's navigation reaches the browser: said, not stopped.
	e = newSchemesDomains(t, "127.0.0.1")
	r = e.must(`click role:button name:Scripted`)
	wantContains(t, "a script's mailto:", r.Text, "mailto: link reached the browser unjudged (a page's script, or a cross-site frame's link, which canopy cannot hold back): mailto: links open another application")
}
