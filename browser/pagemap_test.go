package browser

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/tree"
)

// TestParseMeta checks the metadata line made from JSON-LD and OpenGraph
// as pages write them.
func TestParseMeta(t *testing.T) {
	cases := []struct {
		name string
		raw  rawMeta
		want string
	}{
		{"product", rawMeta{LD: []string{`{"@context":"https://schema.org","@type":"Product","name":"Trail shoe",
			"offers":{"@type":"Offer","price":"89.00","priceCurrency":"EUR","availability":"https://schema.org/InStock"},
			"aggregateRating":{"@type":"AggregateRating","ratingValue":4.6,"reviewCount":"212"}}`}},
			`page: Product "Trail shoe" · offer 89.00 EUR, in stock · rating 4.6 (212)`},
		{"graph with a page's main entity by @id", rawMeta{LD: []string{`{"@graph":[
			{"@type":"WebSite","@id":"#site","name":"Shop"},
			{"@type":"WebPage","@id":"#page","mainEntity":{"@id":"#shoe"}},
			{"@type":"Organization","name":"Acme"},
			{"@type":["Product","Thing"],"@id":"#shoe","name":"Trail &amp; road shoe","offers":[{"price":129,"priceCurrency":"usd"},{"price":139}]}]}`}},
			`page: Product "Trail & road shoe" · offer 129 USD`},
		{"array of objects", rawMeta{LD: []string{`[{"@type":"BreadcrumbList","itemListElement":[]},{"@type":"http://schema.org/NewsArticle","headline":"Rates rise",
			"author":[{"@type":"Person","name":"Ada"},{"@type":"Person","name":"Grace"}],"datePublished":"2026-11-02T08:00:00Z"}]`}},
			`page: NewsArticle "Rates rise" · by "Ada +1" · 2026-11-02`},
		{"event", rawMeta{LD: []string{`{"@type":"MusicEvent","name":"Night set","startDate":"2026-12-01T19:30:00+01:00",
			"location":{"@type":"Place","name":"Olympia Hall","address":{"addressLocality":"Paris"}}}`}},
			`page: MusicEvent "Night set" · 2026-12-01 19:30 · at "Olympia Hall"`},
		{"recipe", rawMeta{LD: []string{`{"@type":"Recipe","name":"Soup","totalTime":"PT1H15M","aggregateRating":{"ratingValue":"4.8","ratingCount":1200}}`}},
			`page: Recipe "Soup" · rating 4.8 (1,200) · 1 h 15 min`},
		{"faq", rawMeta{LD: []string{`{"@type":"FAQPage","name":"Help","mainEntity":[{"@type":"Question"},{"@type":"Question"},{"@type":"Question"}]}`}},
			`page: FAQPage "Help" · 3 questions`},
		{"breadcrumb for a plain page", rawMeta{LD: []string{`{"@type":"CollectionPage","name":"Trail"}`,
			`{"@type":"BreadcrumbList","itemListElement":[{"position":3,"name":"Trail"},{"position":1,"name":"Home"},{"position":2,"item":{"name":"Shoes"}}]}`}},
			`page: CollectionPage "Trail" · path "Home › Shoes"`},
		{"local business", rawMeta{LD: []string{`{"@type":"Restaurant","name":"Chez Ada","address":{"@type":"PostalAddress","addressLocality":"Lyon"}}`}},
			`page: Restaurant "Chez Ada" · at "Lyon"`},
		{"malformed JSON-LD is skipped", rawMeta{LD: []string{`{"@type":"Product","name":"Broken",`, `not json`}}, ``},
		{"no type", rawMeta{LD: []string{`{"name":"Nothing"}`}}, ``},
		{"a type that is not a word is not printed", rawMeta{LD: []string{`{"@type":"Product\n\"x","name":"Evil"}`}}, ``},
		{"OpenGraph article", rawMeta{Meta: map[string]string{"og:type": "article", "og:title": "How trees grow",
			"article:author": "Ada Lovelace", "article:published_time": "2026-11-02"}},
			`page: article "How trees grow" · by "Ada Lovelace" · 2026-11-02`},
		{"OpenGraph website", rawMeta{Meta: map[string]string{"og:type": "website", "og:site_name": "Acme"}}, `page: website "Acme"`},
		{"OpenGraph author URL is left out", rawMeta{Meta: map[string]string{"og:type": "article", "og:title": "T", "article:author": "https://x.test/ada"}},
			`page: article "T"`},
		{"JSON-LD wins, OpenGraph fills in", rawMeta{LD: []string{`{"@type":"Product","name":"Trail shoe"}`},
			Meta: map[string]string{"og:type": "product", "og:title": "Trail shoe | Shop", "product:price:amount": "89.00", "product:price:currency": "EUR"}},
			`page: Product "Trail shoe" · offer 89.00 EUR`},
		{"bad price and currency are dropped", rawMeta{LD: []string{`{"@type":"Product","name":"X","offers":{"price":"call us","priceCurrency":"€"}}`}},
			`page: Product "X"`},
		{"nothing", rawMeta{}, ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parseMeta(c.raw).Line(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestParseMetaLineCost keeps the metadata line short even when the page's
// strings are long: 32 o200k (the estimate caps it at 36) tokens at most.
func TestParseMetaLineCost(t *testing.T) {
	long := "A very long product name that goes on and on well past any sensible length for a line"
	m := parseMeta(rawMeta{LD: []string{`{"@type":"Product","name":"` + long + `","offers":{"price":"1234.50","priceCurrency":"EUR","availability":"InStock"},
		"aggregateRating":{"ratingValue":"4.65","reviewCount":12345},"author":"` + long + `","datePublished":"2026-01-01"}`}})
	line := m.Line()
	if n := counter.Count(line); n > 32 {
		t.Errorf("the line costs %d tokens, want at most 32: %s", n, line)
	}
	t.Logf("%d tokens: %s", counter.Count(line), line)
}

// TestPageMapGolden loads pages with metadata in real Chromium: the page
// line sits under the header of their snapshot, in the model too.
func TestPageMapGolden(t *testing.T) {
	for _, c := range []struct{ page, line string }{
		// JSON-LD in a @graph wins over OpenGraph (95.00), and the page's
		// script cannot fake it.
		{"product", `page: Product "Trail shoe" · offer 89.00 EUR, in stock · rating 4.6 (212)`},
		// OpenGraph only; the malformed JSON-LD is skipped.
		{"article", `page: article "How trees grow" · by "Ada Lovelace" · 2026-11-02`},
	} {
		t.Run(c.page, func(t *testing.T) {
			b := newBrowser(t)
			snap, _ := load(t, b, "/"+c.page+".html")
			if got := snap.Header.Page.Line(); got != c.line {
				t.Errorf("page line\ngot  %s\nwant %s", got, c.line)
			}
			text := tree.Format(snap, tree.Options{})
			if ls := lines(text); len(ls) < 2 || ls[1] != c.line {
				t.Errorf("the page line is not under the header:\n%s", text)
			}
			t.Logf("the page line costs %d o200k tokens", counter.Count(c.line+"\n"))
			start := time.Now()
			c0 := chromedp.FromContext(b.tabCtx())
			if _, err := readMeta(t.Context(), c0.Target, cdp.FrameID(c0.Target.TargetID)); err != nil {
				t.Errorf("read the metadata: %v", err)
			}
			t.Logf("reading the metadata took %v", time.Since(start))
			golden(t, "pagemap-"+c.page, stable(text))
		})
	}
}

// TestPageMapTable: the 1,000-row table's default snapshot says what the
// elided table holds, and a page without metadata has no page line.
func TestPageMapTable(t *testing.T) {
	b := newBrowser(t)
	snap, _ := load(t, b, "/table.html")
	if snap.Header.Page != nil {
		t.Errorf("a page without metadata has none: %+v", snap.Header.Page)
	}
	text := tree.Format(snap, tree.Options{})
	const want = `table "Users" e1: 5 columns, 1,000 rows`
	if ls := lines(text); len(ls) < 2 || ls[1] != want {
		t.Fatalf("want %q under the header:\n%s", want, text)
	}
	t.Logf("the table's summary costs %d o200k tokens; the snapshot %d", counter.Count(want+"\n"), counter.Count(text))
	if n := counter.Count(text); n > tree.DefaultBudget {
		t.Errorf("the snapshot costs %d tokens, over the budget", n)
	}
}

// TestPageMapReplies: the page line is in the reply to a navigation (the
// new page's snapshot) and in snapshot calls, never in a diff nor in a
// snapshot scoped to a part of the page.
func TestPageMapReplies(t *testing.T) {
	_, s := newSession(t, "/login.html")
	const line = `page: Product "Trail shoe" · offer 89.00 EUR, in stock · rating 4.6 (212)`
	r := run(t, s, `navigate "`+testSite.URL("/product.html")+`"`)
	if !r.Replaced {
		t.Fatalf("navigating did not replace the document: %q", r.Text)
	}
	goldenAct(t, "pagemap-navigate", r.Text)
	if ls := lines(r.Text); len(ls) < 3 || ls[2] != line {
		t.Errorf("the navigation's reply has no page line under the header:\n%s", r.Text)
	}
	r = run(t, s, `click role:button name:"Add to cart"`)
	if strings.Contains(r.Text, "page:") {
		t.Errorf("a diff has the page line:\n%s", r.Text)
	}
	r = run(t, s, `snapshot`)
	if ls := lines(r.Text); len(ls) < 2 || ls[1] != line {
		t.Errorf("the snapshot has no page line under the header:\n%s", r.Text)
	}
	r = run(t, s, `snapshot role:main`)
	if strings.Contains(r.Text, "page:") {
		t.Errorf("a scoped snapshot has the page line:\n%s", r.Text)
	}
	r = run(t, s, `navigate "`+testSite.URL("/login.html")+`"`)
	if strings.Contains(r.Text, "page:") {
		t.Errorf("the login page has no metadata, but a page line:\n%s", r.Text)
	}
}

// TestPageMapHuge: a large page read on demand has most of its list
// unread; the summary counts the items the read knows of, read or not.
func TestPageMapHuge(t *testing.T) {
	b := newBrowser(t)
	snap, _ := load(t, b, "/huge.html")
	text := tree.Format(snap, tree.Options{})
	want := fmt.Sprintf(": %s items", "20,000")
	if ls := lines(text); len(ls) < 2 || !strings.HasPrefix(ls[1], "list e") || !strings.HasSuffix(ls[1], want) {
		t.Errorf("want the list's summary under the header:\n%s", text)
	}
	if n := counter.Count(text); n > tree.DefaultBudget {
		t.Errorf("the snapshot costs %d tokens, over the budget", n)
	}
}
