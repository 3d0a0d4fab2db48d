//go:build linux

package desktop

import (
	"context"
	"maps"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/tree"
)

// Chromium draws some of its dialogs with web content: the print preview
// (chrome://print, a window nested in the browser window that holds a web
// document), the tab search bubble, extensions' pop-ups. Under SkipWeb the
// desktop leaves a web document's content to the browser source, which
// reads the tab's page over CDP; but no CDP tab shows these dialogs, so a
// web document inside a window nested in another window is read over
// AT-SPI like any other control. The tab's own document sits in the
// browser window itself, never in a nested window.
//
// The walk that reads an application stops at every web document (it
// cannot tell where an object sits until the tree is read); the documents
// of nested windows are read after it, each with one walk of its own.

// readWebDialogs reads the content of the web documents in windows nested
// in other windows, which the application's walk left out, into t.
func (d *Desktop) readWebDialogs(ctx context.Context, t *atspi.Tree) {
	if !d.skipWeb {
		return
	}
	var docs []atspi.Ref
	// depth counts from the application (0); its windows are at 1.
	var walk func(r atspi.Ref, depth int, nested bool)
	walk = func(r atspi.Ref, depth int, nested bool) {
		it := t.Items[r]
		if it == nil || depth > 0 && !descendShown(it) && it.Role != atspi.RoleDocumentWeb {
			return
		}
		nested = nested || depth > 1 && isWindowRole(it.Role)
		if it.Role == atspi.RoleDocumentWeb {
			if nested && descendShown(it) {
				docs = append(docs, r)
			}
			return
		}
		for _, k := range it.Children {
			walk(k, depth+1, nested)
		}
	}
	walk(t.Root, 0, false)
	for _, doc := range docs {
		sub, err := d.conn.ReadApp(ctx, doc, atspi.ReadOptions{Descend: descendShown})
		if err != nil {
			d.log.Debug("desktop: reading a dialog's web document", "doc", doc, "err", err)
			continue
		}
		maps.Copy(t.Items, sub.Items)
	}
}

// inNestedWindow reports whether an object of the last snapshot sits in a
// window nested in another window (a bubble or dialog drawn inside the
// browser window).
func (d *Desktop) inNestedWindow(it *atspi.Item) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	windows := 0
	for i := 0; i < 64 && it != nil && it.Role != atspi.RoleApplication; i++ {
		if isWindowRole(it.Role) {
			windows++
		}
		it = d.items[it.Parent.String()]
	}
	return windows > 1
}

// WebDialog reports whether n is the web document of a dialog the browser
// draws with web content (a window nested in the browser window; see
// readWebDialogs), and the address it shows: chrome://print/ for the print
// preview. The address is asked for now.
func (d *Desktop) WebDialog(ctx context.Context, n *tree.Node) (uri string, ok bool) {
	it, found := d.item(n)
	if !found || it.Role != atspi.RoleDocumentWeb || !d.inNestedWindow(it) {
		return "", false
	}
	uri, err := d.conn.DocumentURI(ctx, it.Ref)
	if err != nil {
		d.log.Debug("desktop: a dialog's document address", "doc", it.Ref, "err", err)
	}
	return uri, true
}
