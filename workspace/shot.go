package workspace

import (
	"context"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/session"
)

// A screenshot's Shot (session.Shot) places its picture in the tree's
// units, for the executor to paint over what shows a credential. The
// workspace's tree is in screen px, the page's boxes moved there (graft):
// a desktop picture is placed as it is, a page's (an element of the page)
// is moved to the screen as its boxes are.

// placeKind says where the last snapshot put the page's boxes.
type placeKind int

const (
	noPage      placeKind = iota // no page in the tree
	pagePixels                   // in the page's pixels: no web document shows it on the screen
	onTheScreen                  // moved to the screen, from the web document's corner
	unplaced                     // on the screen, but the page's viewport could not be read
	heldPage                     // held by the print preview, which draws it: not read
)

// pagePlace is where the last snapshot put the page's boxes.
type pagePlace struct {
	kind placeKind
	x, y float64 // the web document's corner on the screen (onTheScreen)
}

// setPlace records where the snapshot being read put the page's boxes.
func (w *Workspace) setPlace(p pagePlace) {
	w.mu.Lock()
	w.place = p
	w.mu.Unlock()
}

// placed returns where the last snapshot put the page's boxes.
func (w *Workspace) placed() pagePlace {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.place
}

// placeShot places a screenshot in the workspace's tree: toDesktop says
// the desktop took it (in screen px), else the browser (in the page's
// layout px). Nil when it cannot be placed.
func (w *Workspace) placeShot(ctx context.Context, b *browser.Browser, a action.Action, toDesktop bool, shot *session.Shot) *session.Shot {
	if a.Kind != action.Screenshot || shot == nil {
		return shot
	}
	p := w.placed()
	if toDesktop {
		switch p.kind {
		case unplaced:
			return nil
		case heldPage:
			s := *shot
			s.Unseen = true
			return &s
		}
		return shot
	}
	switch p.kind {
	case pagePixels:
		return shot
	case onTheScreen:
		vp, err := b.Viewport(ctx)
		if err != nil {
			return nil
		}
		return shotOnScreen(*shot, vp, p.x, p.y)
	}
	return nil
}

// shotOnScreen moves a picture placed in the page's layout px to the
// screen, as onScreen moves the page's boxes: its corner goes where the
// page's point goes, and a layout px becomes Scale/Zoom screen px.
func shotOnScreen(s session.Shot, vp browser.Viewport, originX, originY float64) *session.Shot {
	if vp.Zoom <= 0 || vp.Scale <= 0 {
		return nil
	}
	return &session.Shot{
		X:      originX + (s.X/vp.Zoom-vp.X)*vp.Scale,
		Y:      originY + (s.Y/vp.Zoom-vp.Y)*vp.Scale,
		Scale:  s.Scale * vp.Zoom / vp.Scale,
		Unseen: s.Unseen,
	}
}
