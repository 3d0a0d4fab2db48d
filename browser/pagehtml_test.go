package browser

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/canopy-dev/canopy/internal/site"
)

// TestReadHTMLWindows reads a real page (Python's os module docs) in
// windows of a few thousand characters: each window holds exactly its
// share of the text, and the windows put together give the whole text in
// order.
func TestReadHTMLWindows(t *testing.T) {
	path := site.PyDocOSPath
	if !site.HasPyDoc() {
		t.Errorf("%s needs python3-doc (apt-get install python3-doc); using widgets.html", path)
		path = "/widgets.html"
	}
	b := newBrowser(t)
	load(t, b, path)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	whole, err := b.readHTML(ctx, nil, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if whole.more() || whole.From != 0 || whole.End != whole.Total || whole.Total < 1000 {
		t.Fatalf("one window over the whole page: from %d end %d total %d", whole.From, whole.End, whole.Total)
	}
	want := htmlText(t, whole.HTML)
	const size = 7000
	var got strings.Builder
	windows := 0
	for from := 0; ; windows++ {
		w, err := b.readHTML(ctx, nil, from, size)
		if err != nil {
			t.Fatal(err)
		}
		if w.From != from || w.End-w.From != min(size, w.Total-from) || w.Total != whole.Total {
			t.Fatalf("window at %d: from %d end %d total %d", from, w.From, w.End, w.Total)
		}
		if n := len([]rune(htmlText(t, w.HTML))); n != w.End-w.From {
			t.Errorf("window at %d holds %d characters of text, want %d", from, n, w.End-w.From)
		}
		if len(w.HTML) > 12*size { // pydoc is markup-heavy: 4 to 10 bytes of HTML a character
			t.Errorf("window at %d is %d bytes of HTML for %d characters of text", from, len(w.HTML), size)
		}
		got.WriteString(htmlText(t, w.HTML))
		if !w.more() {
			break
		}
		from = w.End
	}
	if windows < 3 {
		t.Errorf("only %d windows", windows)
	}
	if got.String() != want {
		t.Errorf("the windows put together differ from the whole text (%d vs %d characters)", len(got.String()), len(want))
	}
}

// htmlText parses src as a document and returns its text in order.
func htmlText(t *testing.T, src string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return b.String()
}
