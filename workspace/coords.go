package workspace

import (
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/tree"
)

// onScreen returns copies of the page's nodes (and their subtrees) with
// every box moved from the page's coordinates to the screen's, where the
// desktop's boxes are, so that one tree has one unit:
//
//	screen = origin + (page − viewport) × scale
//
// origin is the top-left corner of Chromium's web document on the screen
// (its AT-SPI extents), page a box's corner in the document in CSS px,
// viewport the visual viewport's corner in the document in CSS px, and
// scale screen px per CSS px. The page tree's boxes are in layout px
// (see [browser.Viewport]), so a box is first divided by vp.Zoom.
//
// The nodes are copied, not changed: the browser keeps the tree it
// returned (to name nodes in its errors), and its boxes stay the page's.
// Nodes without a box keep none; a viewport without a zoom or scale
// leaves the nodes as they are.
func onScreen(nodes []*tree.Node, vp browser.Viewport, originX, originY float64) []*tree.Node {
	if nodes == nil || vp.Zoom <= 0 || vp.Scale <= 0 {
		return nodes
	}
	out := make([]*tree.Node, len(nodes))
	for i, n := range nodes {
		c := *n
		if n.Bounds != nil {
			c.Bounds = &tree.Rect{
				X: originX + (n.Bounds.X/vp.Zoom-vp.X)*vp.Scale,
				Y: originY + (n.Bounds.Y/vp.Zoom-vp.Y)*vp.Scale,
				W: n.Bounds.W / vp.Zoom * vp.Scale,
				H: n.Bounds.H / vp.Zoom * vp.Scale,
			}
		}
		c.Children = onScreen(n.Children, vp, originX, originY)
		out[i] = &c
	}
	return out
}
