package extract

import (
	"strconv"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The Markdown table plugin renders a plain <table> of <tr> and <th>/<td>
// well, but gives up on the rest: ARIA grids are not tables to it, a nested
// table or a list in a cell makes it drop the whole table into loose
// paragraphs, and of several header rows it keeps only the first. So before
// converting, every data table is rebuilt as a plain one — with the same
// rows and header rule as [Tables] — keeping the cells' own content (links,
// emphasis, code) for the plugin to render.

// plainTables rebuilds every data table under n (n excluded) in place.
func plainTables(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && isTable(c) {
			if t := plainTable(c); t != nil {
				n.InsertBefore(t, c)
				n.RemoveChild(c)
				c = next
				continue
			}
		}
		plainTables(c)
		c = next
	}
}

// plainTable returns table t rebuilt as a plain HTML table, or nil when it
// has no rows. Only a real <caption> is kept: an aria-labelledby caption is
// a heading the Markdown already shows. Cells are moved out of t, so t must be dropped afterwards.
func plainTable(t *html.Node) *html.Node {
	refs := rowsOf(t)
	if len(refs) == 0 {
		return nil
	}
	rows := raw(refs)
	nHead := headRows(rows)
	out := element(atom.Table)
	if s := htmlCaption(t); s != "" {
		out.AppendChild(element(atom.Caption, text(s)))
	}
	if nHead > 0 {
		tr := element(atom.Tr)
		if nHead == 1 {
			for _, c := range refs[0].cells {
				tr.AppendChild(plainCell(atom.Th, c, 1))
			}
		} else {
			for _, s := range mergeHeader(layout(rows)[:nHead]) {
				tr.AppendChild(element(atom.Th, text(s)))
			}
		}
		out.AppendChild(element(atom.Thead, tr))
	}
	body := element(atom.Tbody)
	var foot []*html.Node
	for i := nHead; i < len(refs); i++ {
		tr := element(atom.Tr)
		for _, c := range refs[i].cells {
			tag := atom.Td
			if isHeaderCell(c) {
				tag = atom.Th
			}
			tr.AppendChild(plainCell(tag, c, len(refs)-i))
		}
		if refs[i].group == inFoot {
			foot = append(foot, tr)
		} else {
			body.AppendChild(tr)
		}
	}
	for _, tr := range foot {
		body.AppendChild(tr)
	}
	out.AppendChild(body)
	return out
}

// plainCell moves cell src's content into a new tag cell, with its spans
// (rowspan capped at maxRows, the rows left) and block content flattened to
// text. A cell with neither text, link nor image (an icon) gets its
// fallback name as text.
func plainCell(tag atom.Atom, src *html.Node, maxRows int) *html.Node {
	c := element(tag)
	if n := span(src, "colspan", maxColspan); n > 1 {
		c.Attr = append(c.Attr, html.Attribute{Key: "colspan", Val: strconv.Itoa(n)})
	}
	if n := span(src, "rowspan", maxRows); n > 1 {
		c.Attr = append(c.Attr, html.Attribute{Key: "rowspan", Val: strconv.Itoa(n)})
	}
	if align := attr(src, "align"); align != "" {
		c.Attr = append(c.Attr, html.Attribute{Key: "align", Val: align})
	}
	if flatText(src) == "" && find(src, func(x *html.Node) bool { return x.DataAtom == atom.A || isImg(x) }) == nil {
		c.AppendChild(text(fallbackName(src)))
		return c
	}
	flattenBlocks(src)
	for src.FirstChild != nil {
		k := src.FirstChild
		src.RemoveChild(k)
		c.AppendChild(k)
	}
	return c
}

// cellBlocks are elements the table plugin cannot render inside a cell.
var cellBlocks = map[atom.Atom]bool{
	atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Blockquote: true,
	atom.Pre: true, atom.Hr: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true,
}

// flattenBlocks replaces each such block under n by its flatText.
func flattenBlocks(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			if cellBlocks[c.DataAtom] || isTable(c) {
				n.InsertBefore(text(" "+flatText(c)+" "), c)
				n.RemoveChild(c)
			} else {
				flattenBlocks(c)
			}
		}
		c = next
	}
}

// element returns a new element with the given children.
func element(a atom.Atom, kids ...*html.Node) *html.Node {
	n := &html.Node{Type: html.ElementNode, DataAtom: a, Data: a.String()}
	for _, k := range kids {
		n.AppendChild(k)
	}
	return n
}

func text(s string) *html.Node { return &html.Node{Type: html.TextNode, Data: s} }
