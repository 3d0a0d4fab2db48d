package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Text returns the visible text of src (a document or a scope's outerHTML):
// every block element on its own line, whitespace inside a line collapsed to
// single spaces, table cells separated by a tab, no blank lines. Hidden and
// non-visual content is left out (see the package doc), and so are form
// control values — the form format reports those from the live tree — except
// the labels of button-like inputs, which are visible text.
func Text(src string) (string, error) {
	doc, err := parse(src)
	if err != nil {
		return "", err
	}
	var w textWriter
	w.node(doc)
	return w.String(), nil
}

// blocks are the elements that start and end a line of text.
var blocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Body: true, atom.Caption: true, atom.Dd: true, atom.Details: true, atom.Dialog: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
	atom.Hgroup: true, atom.Hr: true, atom.Html: true, atom.Legend: true, atom.Li: true,
	atom.Main: true, atom.Menu: true, atom.Nav: true, atom.Ol: true, atom.P: true,
	atom.Pre: true, atom.Section: true, atom.Summary: true, atom.Table: true,
	atom.Tbody: true, atom.Tfoot: true, atom.Thead: true, atom.Tr: true, atom.Ul: true,
	atom.Search: true,
}

// cellRoles are the ARIA roles of a table or grid cell.
var cellRoles = map[string]bool{"cell": true, "gridcell": true, "columnheader": true, "rowheader": true}

// textWriter accumulates visible text as lines. Text runs are collapsed as
// they arrive; block boundaries end the current line.
type textWriter struct {
	lines []string
	cur   strings.Builder
	space bool // a space is due before the next word on this line
}

// node writes the visible text of n and its subtree.
func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	switch n.DataAtom {
	case atom.Head, atom.Select, atom.Textarea:
		return
	case atom.Br:
		w.endLine()
		return
	case atom.Input:
		switch strings.ToLower(attr(n, "type")) {
		case "submit", "button", "reset":
			w.text(" " + attr(n, "value") + " ")
		}
		return
	case atom.Pre:
		w.endLine()
		w.pre(n)
		return
	case atom.Td, atom.Th:
		w.cell(n)
		return
	}
	r := role(n)
	switch {
	case cellRoles[r]:
		w.cell(n)
	case blocks[n.DataAtom] || r == "row" || r == "heading" || r == "listitem":
		w.endLine()
		w.children(n)
		w.endLine()
	default:
		w.children(n)
	}
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// cell writes a table cell: a tab before it unless it starts the line.
func (w *textWriter) cell(n *html.Node) {
	if w.cur.Len() > 0 {
		w.cur.WriteByte('\t')
	}
	w.space = false
	w.children(n)
}

// text appends a run of inline text, collapsing its whitespace.
func (w *textWriter) text(s string) {
	f := strings.Fields(s)
	if len(f) == 0 {
		if s != "" {
			w.space = true
		}
		return
	}
	if startsSpace(s) {
		w.space = true
	}
	for _, word := range f {
		if w.space && w.cur.Len() > 0 && !w.afterTab() {
			w.cur.WriteByte(' ')
		}
		w.cur.WriteString(word)
		w.space = true
	}
	w.space = endsSpace(s)
}

func (w *textWriter) afterTab() bool {
	s := w.cur.String()
	return s[len(s)-1] == '\t'
}

// pre writes preformatted text line by line, keeping its inner spacing.
func (w *textWriter) pre(n *html.Node) {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(x *html.Node) {
		switch {
		case x.Type == html.TextNode:
			b.WriteString(x.Data)
		case x.Type == html.ElementNode && x.DataAtom == atom.Br:
			b.WriteByte('\n')
		default:
			for c := x.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
	}
	walk(n)
	for _, l := range strings.Split(strings.Trim(b.String(), "\n"), "\n") {
		if l = strings.TrimRight(l, " \t\r"); l != "" {
			w.lines = append(w.lines, l)
		}
	}
}

// endLine finishes the current line; an empty line is dropped.
func (w *textWriter) endLine() {
	if l := strings.TrimRight(w.cur.String(), " \t"); l != "" {
		w.lines = append(w.lines, l)
	}
	w.cur.Reset()
	w.space = false
}

// String finishes the text and returns it, lines joined by newlines.
func (w *textWriter) String() string {
	w.endLine()
	return strings.Join(w.lines, "\n")
}

func startsSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

func endsSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}

// innerText is the visible text of n on one line, whitespace collapsed: the
// text of a table cell or a link.
func innerText(n *html.Node) string {
	var w textWriter
	w.children(n)
	return collapse(w.String())
}

// flatText is the visible text of n on one line: each line whitespace
// collapsed, lines joined by "; " — a table cell's text, where a list, a
// nested table or a <br> would otherwise run words together.
func flatText(n *html.Node) string {
	var w textWriter
	w.children(n)
	w.endLine()
	parts := w.lines[:0]
	for _, l := range w.lines {
		if l = collapse(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}
