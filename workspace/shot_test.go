package workspace

import (
	"math"
	"testing"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// TestShotOnScreen: a page's picture moved to the screen places a box
// moved there (onScreen) where the page's own Shot placed the page's box,
// at any zoom, pinch, scroll and device scale.
func TestShotOnScreen(t *testing.T) {
	box := tree.Rect{X: 600, Y: 3000, W: 320, H: 96} // layout px
	for _, vp := range []browser.Viewport{
		{Zoom: 1, Scale: 1},
		{X: 40, Y: 1200, Zoom: 2, Scale: 2},
		{X: 10, Y: 700, Zoom: 1.5, Scale: 3},
	} {
		// A picture of the page from 500,2900 layout px at 1.7 pixels each.
		page := session.Shot{X: 500, Y: 2900, Scale: 1.7}
		want := pixel(page, box)
		moved := onScreen([]*tree.Node{{Bounds: &box}}, vp, 10, 143)[0].Bounds
		s := shotOnScreen(page, vp, 10, 143)
		if s == nil {
			t.Fatalf("%+v: not placed", vp)
		}
		if got := pixel(*s, *moved); math.Abs(got.X-want.X) > 1e-6 || math.Abs(got.Y-want.Y) > 1e-6 || math.Abs(got.W-want.W) > 1e-6 || math.Abs(got.H-want.H) > 1e-6 {
			t.Errorf("%+v: the box on the screen is at %+v of the picture, want %+v", vp, got, want)
		}
	}
	if shotOnScreen(session.Shot{Scale: 1}, browser.Viewport{}, 0, 0) != nil {
		t.Errorf("a viewport without a zoom placed the picture")
	}
}

// pixel is a box in the picture's pixels.
func pixel(s session.Shot, b tree.Rect) tree.Rect {
	return tree.Rect{X: (b.X - s.X) * s.Scale, Y: (b.Y - s.Y) * s.Scale, W: b.W * s.Scale, H: b.H * s.Scale}
}
