package extract

import (
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// tablePart matches HTML that starts with a table-internal element. Outside a
// <table> the HTML parser drops such tags, so a scope that is one row or cell
// is wrapped in a table first.
var tablePart = regexp.MustCompile(`(?i)^<(tr|td|th|tbody|thead|tfoot|caption|colgroup)[\s/>]`)

// parse parses a document or a fragment (a scope's outerHTML) and prunes what
// no format may show (see prune).
func parse(src string) (*html.Node, error) {
	s := strings.TrimSpace(src)
	if tablePart.MatchString(s) {
		s = "<table>" + s + "</table>"
	}
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return nil, err
	}
	prune(doc)
	return doc, nil
}

// prune removes, in place, everything under n that is not shown to a user —
// non-visual elements, hidden subtrees, comments — and the value of every
// password field. Doing it once at parse time means no later step (readability,
// the Markdown converter, the table walker) can leak a hidden or secret string.
func prune(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.CommentNode, c.Type == html.ElementNode && hidden(c):
			n.RemoveChild(c)
		case c.Type == html.ElementNode:
			if c.DataAtom == atom.Input && secretInput(c) {
				removeAttr(c, "value")
			}
			if c.DataAtom == atom.Details && !hasAttr(c, "open") {
				closeDetails(c)
			}
			prune(c)
		}
		c = next
	}
}

// secretInput reports whether an input holds a secret: a password field, or
// one the page marks as a password for autofill.
func secretInput(n *html.Node) bool {
	return strings.EqualFold(attr(n, "type"), "password") ||
		strings.Contains(strings.ToLower(attr(n, "autocomplete")), "password")
}

// nonVisual are elements whose content is never rendered as page content.
var nonVisual = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Template: true, atom.Noscript: true,
	atom.Svg: true, atom.Canvas: true, atom.Video: true, atom.Audio: true,
	atom.Object: true, atom.Iframe: true, atom.Datalist: true,
}

// hidden reports whether element n and its subtree are not shown.
func hidden(n *html.Node) bool {
	if nonVisual[n.DataAtom] || n.Data == "svg" {
		return true
	}
	if hasAttr(n, "hidden") || strings.EqualFold(strings.TrimSpace(attr(n, "aria-hidden")), "true") {
		return true
	}
	if n.DataAtom == atom.Input && strings.EqualFold(attr(n, "type"), "hidden") {
		return true
	}
	if n.DataAtom == atom.Dialog && !hasAttr(n, "open") {
		return true
	}
	if st := attr(n, "style"); st != "" {
		st = strings.ToLower(strings.Join(strings.Fields(st), ""))
		if strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden") {
			return true
		}
	}
	return false
}

// closeDetails drops the content of a closed <details> element, keeping its
// <summary>: that is all a user sees.
func closeDetails(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type != html.ElementNode || c.DataAtom != atom.Summary {
			n.RemoveChild(c)
		}
		c = next
	}
}

// attr returns the value of n's attribute key (lowercase), or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

// setAttr sets n's attribute key to val, adding it when missing.
func setAttr(n *html.Node, key, val string) {
	for i, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

func removeAttr(n *html.Node, key string) {
	out := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Key != key {
			out = append(out, a)
		}
	}
	n.Attr = out
}

// role returns n's first ARIA role token, lowercase.
func role(n *html.Node) string {
	f := strings.Fields(strings.ToLower(attr(n, "role")))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// find returns the first element under n (n included) for which ok is true,
// in document order.
func find(n *html.Node, ok func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && ok(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, ok); f != nil {
			return f
		}
	}
	return nil
}

// idIndex maps the id attributes under n to their (first) elements, for
// aria-labelledby.
func idIndex(n *html.Node) map[string]*html.Node {
	ids := map[string]*html.Node{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if id := attr(n, "id"); n.Type == html.ElementNode && id != "" {
			if _, dup := ids[id]; !dup {
				ids[id] = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return ids
}

// body returns the document's <body>, or n itself when there is none.
func body(n *html.Node) *html.Node {
	if b := find(n, func(x *html.Node) bool { return x.DataAtom == atom.Body }); b != nil {
		return b
	}
	return n
}

// baseURL is the URL relative links in doc resolve against: pageURL, moved by
// a <base href> when the document has one. Nil when pageURL does not parse.
func baseURL(doc *html.Node, pageURL string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil {
		return nil
	}
	if b := find(doc, func(x *html.Node) bool { return x.DataAtom == atom.Base && hasAttr(x, "href") }); b != nil {
		if bu, err := u.Parse(strings.TrimSpace(attr(b, "href"))); err == nil {
			u = bu
		}
	}
	return u
}

// resolve makes href absolute against base. It returns "" for links that
// lead nowhere an agent can follow — empty, "#", javascript: — and for
// data: URLs, which are content (often kilobytes of it), not addresses.
func resolve(base *url.URL, href string) string {
	href = strings.TrimSpace(href)
	low := strings.ToLower(href)
	if href == "" || href == "#" || strings.HasPrefix(low, "javascript:") || strings.HasPrefix(low, "data:") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return href
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	return u.String()
}

// collapse trims s and turns every run of whitespace into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
