package browser

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/internal/site"
)

// speculationPage is the test site's page that asks the browser to
// prefetch and prerender, on a refused origin of the same site (o) and on
// the cross site, each with a link to click; how says how its rules come
// (site.serveSpeculation).
func speculationPage(o *site.Origin, how, tag string) string {
	q := url.Values{
		"prefetch":  {o.URL("/pf-" + tag), testSite.CrossURL("/landing/prefetch")},
		"prerender": {o.URL("/pre-" + tag), testSite.CrossURL("/landing/prerender")},
		"how":       {how},
	}
	return "/speculation.html?" + q.Encode()
}

// speculationLinks are the links of speculationPage, by name.
var speculationLinks = []string{"Prefetched 1", "Prefetched 2", "Prerendered 1", "Prerendered 2"}

// TestSpeculationRefused: a page whose speculation rules ask a browser
// canopy launched to prefetch and prerender pages of hosts --domains
// refuses gets none of them: the refused origin serves nothing (no
// request, no script of its page runs), and a click on each link — which
// a prefetched or prerendered page would answer without any request the
// interception sees — is refused with its outcome line.
func TestSpeculationRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	o, err := site.ServeOrigin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	hits := countCross()
	allowed := strings.TrimPrefix(testSite.URL(""), "http://") // the primary site's port only
	page := speculationPage(o, "inline", "launched")
	e, _ := newDomainsAct(t, page, true, allowed)
	for _, link := range speculationLinks {
		r := e.must(`click role:link name:"` + link + `"`)
		wantContains(t, "click "+link, stable(r.Text), "refused navigation to 127.0.0.")
		wantNot(t, "click "+link, r.Text, "navigated ")
		e.must("navigate " + testSite.URL(page))
	}
	if seen := o.Seen(); len(seen) > 0 {
		t.Errorf("the refused origin served %q", seen)
	}
	hits.none(t, "/landing/prefetch")
	hits.none(t, "/landing/prerender")
}
