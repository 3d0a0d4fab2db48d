package extract

import (
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// conv is the one Markdown converter; html-to-markdown documents it as safe
// for concurrent use.
var conv = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(),
	commonmark.NewCommonmarkPlugin(
		commonmark.WithListEndComment(false),
		commonmark.WithLinkEmptyHrefBehavior(commonmark.LinkBehaviorSkip),
		commonmark.WithLinkEmptyContentBehavior(commonmark.LinkBehaviorSkip),
	),
	table.NewTablePlugin(
		table.WithSpanCellBehavior(table.SpanBehaviorMirror),
		table.WithCellPaddingBehavior(table.CellPaddingBehaviorNone),
		table.WithNewlineBehavior(table.NewlineBehaviorPreserve),
		table.WithSkipEmptyRows(true),
		table.WithHeaderPromotion(true),
	),
))

// Markdown returns src as Markdown with every link and image made absolute
// against pageURL (and the document's <base href>).
//
// When whole is true src is the whole document: its main article is found
// first with readability, so navigation, sidebars and footers are left out,
// and the article's title heads the output. When readability finds nothing
// worth keeping (a form, a search page, an app), the whole body is converted
// instead. When whole is false src is one scope the agent chose, converted as
// it is.
//
// The output is trimmed and has no more than one blank line in a row outside
// code blocks. Hidden content and password values are never included.
func Markdown(src, pageURL string, whole bool) (string, error) {
	doc, err := parse(src)
	if err != nil {
		return "", err
	}
	base := baseURL(doc, pageURL)
	root, title := doc, ""
	if whole {
		root = body(doc)
		if art, ok := article(doc, base); ok {
			root, title = art.Node, collapse(art.Title())
		}
	}
	prepare(root, base)
	out, err := conv.ConvertNode(root)
	if err != nil {
		return "", err
	}
	md := tidy(string(out))
	if title != "" && !strings.Contains(strings.ToLower(md), strings.ToLower(title)) {
		md = "# " + title + "\n\n" + md
	}
	return md, nil
}

// article runs readability on a copy of doc. ok is false when it fails or
// finds too little: less than minArticle characters, or less than a tenth of
// the body's text (it picked one snippet of a page that is not an article).
func article(doc *html.Node, base *url.URL) (readability.Article, bool) {
	art, err := readability.FromDocument(doc, base)
	if err != nil || art.Node == nil {
		return art, false
	}
	got := len(innerText(art.Node))
	all := len(innerText(body(doc)))
	return art, got >= minArticle && got*10 >= all
}

// minArticle is the least text, in bytes, an article must have to be
// preferred over the whole body.
const minArticle = 200

// prepare readies a subtree for the converter: data tables are rebuilt as
// plain ones (see plainTables); links and images are made absolute against
// base here rather than by the converter, which cannot resolve against
// file: or other host-less URLs; links that lead nowhere are unwrapped
// (their text stays); icon-only links get their aria-label or title as
// text; permalink anchors (a lone ¶, # or §) are dropped;
// link and image titles are dropped (they mostly repeat the text and cost
// tokens); inline data: images — kilobytes of base64 — become their alt
// text; select boxes are dropped (the form format reports their values).
func prepare(n *html.Node, base *url.URL) {
	plainTables(n)
	tidyNodes(n, base)
}

// permalinks are the texts of heading anchor links on docs sites.
var permalinks = map[string]bool{"¶": true, "#": true, "§": true, "🔗": true, "⚓": true}

func tidyNodes(n *html.Node, base *url.URL) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type != html.ElementNode {
			c = next
			continue
		}
		tidyNodes(c, base)
		switch c.DataAtom {
		case atom.A, atom.Area:
			href := resolve(base, attr(c, "href"))
			switch {
			case href == "":
				unwrap(c)
			case permalinks[innerText(c)]:
				n.RemoveChild(c)
			default:
				setAttr(c, "href", href)
				if c.DataAtom == atom.A && innerText(c) == "" && find(c, isImg) == nil {
					c.AppendChild(text(fallbackName(c))) // an icon link: name it
				}
			}
			removeAttr(c, "title")
		case atom.Img:
			removeAttr(c, "title")
			removeAttr(c, "srcset")
			if src := strings.TrimSpace(attr(c, "src")); strings.HasPrefix(strings.ToLower(src), "data:") {
				n.InsertBefore(text(attr(c, "alt")), c)
				n.RemoveChild(c)
			} else if src != "" {
				setAttr(c, "src", resolve(base, src))
			}
		case atom.Select:
			n.RemoveChild(c)
		}
		c = next
	}
}

func isImg(n *html.Node) bool { return n.DataAtom == atom.Img }

// unwrap replaces element n by its children.
func unwrap(n *html.Node) {
	p := n.Parent
	for n.FirstChild != nil {
		k := n.FirstChild
		n.RemoveChild(k)
		p.InsertBefore(k, n)
	}
	p.RemoveChild(n)
}

// tidy trims the Markdown and squeezes runs of blank lines to one, leaving
// fenced code blocks as they are.
func tidy(md string) string {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	lines := strings.Split(md, "\n")
	var b strings.Builder
	fence, blanks := "", 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			fence = t[:3]
		} else if fence != "" && strings.HasPrefix(t, fence) {
			fence = ""
		}
		if t == "" && fence == "" {
			blanks++
			if blanks > 1 {
				continue
			}
			l = ""
		} else {
			blanks = 0
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String())
}
