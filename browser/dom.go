package browser

import (
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"

	"github.com/canopy-dev/canopy/tree"
)

// domFacts is what the accessibility tree does not say about a DOM node and
// DOMSnapshot.captureSnapshot does, for every node of one target in one call:
// layout bounds, click evidence and a few attributes.
type domFacts struct {
	nodes map[cdp.BackendNodeID]*domNode
	// docs maps a frame id to its document's scroll offset.
	docs map[cdp.FrameID]offset
	// shadows counts the elements inside open and closed shadow roots of
	// the target's documents: a tree is kept only when the page's trackers
	// watch as many (shadows.go). The snapshot gives no shadow roots, only
	// the elements inside them.
	shadows int
	// elsewhere counts the frames whose document is not in this snapshot:
	// another process holds it, or it is on its way there (kept.go).
	elsewhere int
	// frames says which elements show which frames, and where in them
	// (frameboxes.go).
	frames frameFacts
}

// offset is a distance in layout px (viewport.go), as the DOM snapshot
// gives them: a document's scroll position, where a frame's content starts
// inside its owner's box.
type offset struct{ x, y float64 }

type domNode struct {
	bounds    *tree.Rect // in the node's own document's coordinates
	clickable bool       // has click/mouse listeners, or navigates (anchors)
	pointer   bool       // cursor:pointer set here, not only inherited
	block     bool       // laid out as a box of its own (display is not inline)
	tag       string
	attrs     map[string]string // only the attributes we use (see wantAttr)
}

// domSnapshotParams asks for the computed styles we need, in this order:
// cursor (click evidence) and display (block boundaries). Not DOM rects:
// they cost more than the rest of the call (70 of 125 ms on a 1,000-row
// table), and a frame owner's border and padding come cheaper
// (frameboxes.go).
var domSnapshotParams = domsnapshot.CaptureSnapshotParams{
	ComputedStyles: []string{"cursor", "display"},
}

func wantAttr(name string) bool {
	switch name {
	case "type", "class", "title", "alt", "onclick", "id", credentialAttr:
		return true
	}
	return false
}

// credentialAttr marks an element a canopy session typed a credential
// into, with the credential's name: the mask travels with the page, so a
// second canopy attached to the same browser shows the field masked too,
// though it never knew the value.
const credentialAttr = "data-canopy-credential"

// indexDOM turns a captureSnapshot result into per-node facts.
func indexDOM(res domsnapshot.CaptureSnapshotResult) *domFacts {
	f := &domFacts{nodes: map[cdp.BackendNodeID]*domNode{}, docs: map[cdp.FrameID]offset{}}
	str := func(i int64) string {
		if i < 0 || int(i) >= len(res.Strings) {
			return ""
		}
		return res.Strings[i]
	}
	for _, d := range res.Documents {
		f.docs[cdp.FrameID(str(int64(d.FrameID)))] = offset{d.ScrollOffsetX, d.ScrollOffsetY}
		nodes := d.Nodes
		if nodes == nil {
			continue
		}
		if t := nodes.ShadowRootType; t != nil {
			for j, v := range t.Value {
				i := t.Index[j]
				if k := str(int64(v)); (k == "open" || k == "closed") && int(i) < len(nodes.NodeType) && nodes.NodeType[i] == 1 {
					f.shadows++
				}
			}
		}

		withDoc := map[int64]bool{}
		if nodes.ContentDocumentIndex != nil {
			for _, i := range nodes.ContentDocumentIndex.Index {
				withDoc[i] = true
			}
		}
		all := make([]*domNode, len(nodes.BackendNodeID))
		for i, id := range nodes.BackendNodeID {
			if i < len(nodes.NodeType) && nodes.NodeType[i] != 1 {
				continue // elements only
			}
			n := &domNode{}
			if i < len(nodes.NodeName) {
				n.tag = strings.ToLower(str(int64(nodes.NodeName[i])))
			}
			if (n.tag == "iframe" || n.tag == "frame") && !withDoc[int64(i)] {
				f.elsewhere++
			}
			if i < len(nodes.Attributes) {
				a := nodes.Attributes[i]
				for k := 0; k+1 < len(a); k += 2 {
					if name := str(a[k]); wantAttr(name) {
						if n.attrs == nil {
							n.attrs = map[string]string{}
						}
						n.attrs[name] = str(a[k+1])
					}
				}
			}
			all[i] = n
			f.nodes[id] = n
		}
		if nodes.IsClickable != nil {
			for _, i := range nodes.IsClickable.Index {
				if int(i) < len(all) && all[i] != nil {
					all[i].clickable = true
				}
			}
		}
		f.frames.noteFrames(res.Documents, d, all, str)
		if d.Layout == nil {
			continue
		}
		cursor := make([]string, len(all))
		for li, ni := range d.Layout.NodeIndex {
			if int(ni) >= len(all) || all[ni] == nil {
				continue
			}
			n := all[ni]
			if li < len(d.Layout.Bounds) {
				n.bounds = rect(d.Layout.Bounds[li])
			}
			if li < len(d.Layout.Styles) && len(d.Layout.Styles[li]) > 0 {
				st := d.Layout.Styles[li]
				cursor[ni] = str(st[0])
				if len(st) > 1 {
					n.block = blockDisplay(str(st[1]))
				}
			}
		}
		// cursor is inherited: only the element that sets it counts.
		for i, c := range cursor {
			if c != "pointer" || all[i] == nil {
				continue
			}
			p := int64(-1)
			if i < len(nodes.ParentIndex) {
				p = nodes.ParentIndex[i]
			}
			if p < 0 || int(p) >= len(cursor) || cursor[p] != "pointer" {
				all[i].pointer = true
			}
		}
	}
	return f
}

// blockDisplay reports whether a computed display value lays an element out
// as a box of its own, which text cannot flow across: block, flex, grid,
// list-item, table parts, and atomic inline boxes (inline-block…). Plain
// inline and contents (no box at all) are not.
func blockDisplay(display string) bool {
	switch display {
	case "", "inline", "contents", "none", "ruby", "ruby-text":
		return false
	}
	return true
}

func rect(r domsnapshot.Rectangle) *tree.Rect {
	if len(r) < 4 {
		return nil
	}
	return &tree.Rect{X: r[0], Y: r[1], W: r[2], H: r[3]}
}

// hint returns a name of last resort for an unnamed clickable element: its
// title, its alt, or the most telling word of its class ("icon icon-close" →
// "close").
func (n *domNode) hint() string {
	if n == nil {
		return ""
	}
	for _, a := range []string{"title", "alt"} {
		if v := strings.TrimSpace(n.attrs[a]); v != "" {
			return v
		}
	}
	return classHint(n.attrs["class"])
}

// classHint picks the last class word that is not a generic styling word.
func classHint(class string) string {
	words := strings.FieldsFunc(class, func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t'
	})
	for i := len(words) - 1; i >= 0; i-- {
		w := strings.ToLower(words[i])
		switch w {
		case "icon", "icons", "btn", "button", "fa", "fas", "far", "glyph", "glyphicon",
			"material", "symbols", "outlined", "svg", "ico", "link", "like", "js", "is",
			"active", "sm", "lg", "xs", "md", "small", "large", "clickable", "pointer":
			continue
		}
		if len(w) > 1 && !strings.ContainsAny(w, "0123456789") {
			return w
		}
	}
	return ""
}
