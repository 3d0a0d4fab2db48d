package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// ExtractWindow is how many characters of a page's text one extract reads.
// A bigger page (or scope) is read a window at a time: the reply ends with
// a line giving where the next window starts (`extract from N`), so a page
// with a 50 MB text node costs canopy a window's memory, not the page's.
const ExtractWindow = 200_000

// pageHTML is a window of a document's (or an element's) HTML, cut to the
// characters [From, End) of its text out of Total.
type pageHTML struct {
	HTML  string `json:"html"`
	From  int    `json:"from"`
	End   int    `json:"end"`
	Total int    `json:"total"`
}

// more reports whether text is left after the window.
func (p pageHTML) more() bool { return p.End < p.Total }

// windowJS serializes the element it is called on (this) to HTML, keeping
// only the text characters [from, from+limit) and the elements around
// them. Scripts, styles, templates and comments are left out, as the
// extractors drop them anyway; attribute values over 4 KB (inline data:
// URLs) are dropped so that markup cannot grow the window without end.
//
// It walks the tree once, in the page, so the page's whole HTML is never
// built as one string nor sent over CDP. Recursion is safe: Chromium's
// HTML parser caps nesting at 512 levels, and a deeper tree built by
// script fails with a RangeError, reported as an error.
const windowJS = `function(from, limit) {
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
  const empty = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
  const root = this.nodeType === 9 ? this.documentElement : this;
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const escAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  let total = 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => n.nodeType === 1 && skip.has(n.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  for (let n = walker.currentNode; n; n = walker.nextNode()) {
    if (n.nodeType === 3) total += n.data.length;
  }
  from = Math.max(0, Math.min(from, total));
  const end = Math.min(total, from + limit);
  const out = [];
  let count = 0;
  const walk = (n) => {
    if (n.nodeType === 3) {
      const c = count;
      count += n.data.length;
      if (count > from && c < end) out.push(esc(n.data.slice(Math.max(from - c, 0), Math.min(end - c, n.data.length))));
      return;
    }
    if (n.nodeType !== 1 || skip.has(n.tagName) || count >= end) return;
    const start = out.length;
    const tag = n.localName;
    let open = '<' + tag;
    for (const a of n.attributes) {
      if (a.value.length <= 4096) open += ' ' + a.name + '="' + escAttr(a.value) + '"';
    }
    out.push(open + '>');
    // The parser drops a newline right after these tags: keep the text's own.
    if ((tag === 'pre' || tag === 'textarea' || tag === 'listing') && n.firstChild && n.firstChild.nodeType === 3 && n.firstChild.data[0] === '\n' && count >= from) out.push('\n');
    if (!empty.has(tag)) {
      for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
      out.push('</' + tag + '>');
    }
    if (from > 0 && count <= from && n !== root) out.length = start;
  };
  walk(root);
  return {html: out.join(''), from, end, total};
}`

// readHTML reads a window of the HTML of the node h, or of the current
// tab's document when h is nil: limit characters of its text starting at
// character from.
func (b *Browser) readHTML(ctx context.Context, h *handle, from, limit int) (pageHTML, error) {
	var p pageHTML
	if h != nil {
		return p, h.call(ctx, windowJS, &p, from, limit)
	}
	res, err := cdp.Call(ctx, chromedpTarget(b.tabCtx()), runtime.Evaluate, runtime.EvaluateParams{
		Expression:    fmt.Sprintf("(%s).call(document, %d, %d)", windowJS, from, limit),
		ReturnByValue: new(true),
	})
	if err != nil {
		return p, err
	}
	if res.ExceptionDetails != nil {
		return p, fmt.Errorf("%s", exceptionText(res.ExceptionDetails))
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return p, fmt.Errorf("the page gave no HTML")
	}
	return p, json.Unmarshal(res.Result.Value, &p)
}
