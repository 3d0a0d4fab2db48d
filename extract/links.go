package extract

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Link is one link an agent can follow.
type Link struct {
	// Text is what the link says: its visible text, else its aria-label,
	// title, or the alt of an image inside it. It may be "".
	Text string
	// URL is absolute.
	URL string
}

// Links returns the links (<a href>, <area href>) in src, a document or a
// scope's outerHTML, in document order, with URLs made absolute against
// pageURL and the document's <base href>. A link seen before with the same
// text and URL is dropped. Links that lead nowhere — an empty href, "#", or
// javascript: — are left out, as are hidden ones.
func Links(src, pageURL string) ([]Link, error) {
	doc, err := parse(src)
	if err != nil {
		return nil, err
	}
	base := baseURL(doc, pageURL)
	seen := map[Link]bool{}
	var out []Link
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.A || n.DataAtom == atom.Area) && hasAttr(n, "href") {
			if u := resolve(base, attr(n, "href")); u != "" {
				l := Link{Text: linkText(n), URL: u}
				if !seen[l] {
					seen[l] = true
					out = append(out, l)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out, nil
}

func linkText(n *html.Node) string {
	if n.DataAtom == atom.Area {
		if t := collapse(attr(n, "alt")); t != "" {
			return t
		}
	}
	if t := innerText(n); t != "" {
		return t
	}
	return fallbackName(n)
}

// maxLinkText cuts long link texts (a whole card made a link) in RenderLinks.
const maxLinkText = 100

// RenderLinks prints links one per line as `- [text](url)`, Markdown an
// agent reads and can paste. Brackets in the text are escaped, spaces and
// parentheses in the URL percent-encoded, and a text longer than 100
// characters is cut with "…". No links prints "no links".
func RenderLinks(ls []Link) string {
	if len(ls) == 0 {
		return "no links"
	}
	var b strings.Builder
	for _, l := range ls {
		b.WriteString("- [")
		b.WriteString(linkEscaper.Replace(cut(l.Text, maxLinkText)))
		b.WriteString("](")
		b.WriteString(urlEscaper.Replace(l.URL))
		b.WriteString(")\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

var (
	linkEscaper = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`)
	urlEscaper  = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E")
)

// cut shortens s to at most n runes, ending with "…" when cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
