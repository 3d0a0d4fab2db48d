//go:build linux

package desktop

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/capture"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// maxMarks caps the labels drawn on one screenshot, as on pages: past a
// few hundred they cover what they label.
const maxMarks = 400

// screenshot captures a desktop node (a window, an app's windows, any
// object), the whole screen (a.Screen) or, with no target, the window in
// front, as a PNG. With marks it labels the nodes with refs that
// show in it.
func (d *Desktop) screenshot(ctx context.Context, target *tree.Node, a action.Action) (session.Output, error) {
	scr, err := d.screen(ctx)
	if err != nil {
		return session.Output{}, err
	}
	scope, rect, err := d.shotArea(ctx, target, a.Screen, scr)
	if err != nil {
		return session.Output{}, err
	}
	img, err := scr.Grab(ctx, rect)
	if err != nil {
		return session.Output{}, fmt.Errorf("screenshot: %w", err)
	}
	if a.Marks {
		marks := marksIn(scope, rect)
		for _, m := range marks {
			d.refs.Shown(m.Ref) // the agent sees these refs in the picture
		}
		capture.Draw(img, marks)
	}
	png, err := capture.PNG(img)
	if err != nil {
		return session.Output{}, fmt.Errorf("screenshot: %w", err)
	}
	// The picture is the grabbed rectangle of the screen, whose pixels are
	// the tree's: the executor paints over what shows a credential.
	at := img.Bounds().Min
	return session.Output{Image: png, Shot: &session.Shot{X: float64(at.X), Y: float64(at.Y), Scale: 1}}, nil
}

// shotArea is what a screenshot shows: the node whose refs it marks, and
// the rectangle of the screen it covers.
func (d *Desktop) shotArea(ctx context.Context, target *tree.Node, screen bool, scr *capture.Screen) (*tree.Node, capture.Rect, error) {
	if screen {
		w, h := scr.Size()
		var root *tree.Node
		if snap, err := d.Snapshot(ctx, false); err == nil {
			root = snap.Root
		}
		return root, capture.Rect{W: w, H: h}, nil
	}
	if target == nil {
		return d.frontWindow(ctx)
	}
	if r, ok := boxOf(target); ok {
		return target, r, nil
	}
	return nil, capture.Rect{}, fmt.Errorf("%s has no place on the screen to capture (not shown?)", tree.Line(target))
}

// frontWindow is the topmost top-level window (menus and tooltips aside),
// with its node in a fresh snapshot when one matches it.
func (d *Desktop) frontWindow(ctx context.Context) (*tree.Node, capture.Rect, error) {
	wins := d.xWindows(ctx)
	for i := len(wins) - 1; i >= 0; i-- {
		w := wins[i]
		if w.Override || w.W <= 0 || w.H <= 0 {
			continue
		}
		rect := capture.Rect{X: w.X, Y: w.Y, W: w.W, H: w.H}
		var node *tree.Node
		if snap, err := d.Snapshot(ctx, false); err == nil {
			node = windowNode(snap.Root, cleanName(w.Title), rect)
		}
		return node, rect, nil
	}
	return nil, capture.Rect{}, errors.New("no window is shown: nothing to capture (give a target, or the desktop for the whole screen)")
}

// windowNode finds the window node named title, or failing that the one
// whose box is rect.
func windowNode(root *tree.Node, title string, rect capture.Rect) *tree.Node {
	var byName, byBox *tree.Node
	tree.Walk(root, func(n *tree.Node) bool {
		if n.Role != "window" && n.Role != "dialog" && n.Role != "alertdialog" {
			return true
		}
		if byName == nil && title != "" && cleanName(n.Name) == title {
			byName = n
		}
		if r, ok := boxOf(n); ok && byBox == nil && r == rect {
			byBox = n
		}
		return false
	})
	if byName != nil {
		return byName
	}
	return byBox
}

// boxOf is a node's box in whole screen pixels, or the union of its
// children's boxes for a node without one (an application).
func boxOf(n *tree.Node) (capture.Rect, bool) {
	if b := n.Bounds; b != nil && b.W > 0 && b.H > 0 {
		x0, y0 := math.Floor(b.X), math.Floor(b.Y)
		return capture.Rect{X: int(x0), Y: int(y0), W: int(math.Ceil(b.X+b.W) - x0), H: int(math.Ceil(b.Y+b.H) - y0)}, true
	}
	var u capture.Rect
	found := false
	for _, c := range n.Children {
		r, ok := boxOf(c)
		if !ok {
			continue
		}
		if !found {
			u, found = r, true
			continue
		}
		x0, y0 := min(u.X, r.X), min(u.Y, r.Y)
		x1, y1 := max(u.X+u.W, r.X+r.W), max(u.Y+u.H, r.Y+r.H)
		u = capture.Rect{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
	}
	return u, found
}

// marksIn lists the nodes under scope that have a ref and a box meeting
// rect, in document order, at most maxMarks.
func marksIn(scope *tree.Node, rect capture.Rect) []capture.Mark {
	var out []capture.Mark
	area := rect.Image()
	tree.Walk(scope, func(n *tree.Node) bool {
		if len(out) >= maxMarks {
			return false
		}
		if n.Ref == "" || n.Bounds == nil {
			return true
		}
		if r, ok := boxOf(n); ok && r.Image().Overlaps(area) {
			out = append(out, capture.Mark{Ref: n.Ref, Box: r})
		}
		return true
	})
	return out
}

// screen returns the X screen capture connection, opening it on first use.
func (d *Desktop) screen(ctx context.Context) (*capture.Screen, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shot != nil {
		return d.shot, nil
	}
	s, err := capture.Open(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
	}
	d.shot = s
	return s, nil
}
