package workspace

import (
	"testing"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/tree"
)

func TestOnScreen(t *testing.T) {
	// A button at 300,1500 CSS px, 160×48, in a document whose top-left
	// corner is at 10,143 on the screen.
	for _, tc := range []struct {
		name string
		vp   browser.Viewport
		box  tree.Rect // the page's box, in layout px
		want tree.Rect
	}{
		{"top of the page", browser.Viewport{Zoom: 1, Scale: 1},
			tree.Rect{X: 300, Y: 1500, W: 160, H: 48}, tree.Rect{X: 310, Y: 1643, W: 160, H: 48}},
		{"scrolled", browser.Viewport{X: 20, Y: 1200, Zoom: 1, Scale: 1},
			tree.Rect{X: 300, Y: 1500, W: 160, H: 48}, tree.Rect{X: 290, Y: 443, W: 160, H: 48}},
		// Device scale factor 2: the page lays out in device px.
		{"scale 2", browser.Viewport{X: 20, Y: 1200, Zoom: 2, Scale: 2},
			tree.Rect{X: 600, Y: 3000, W: 320, H: 96}, tree.Rect{X: 570, Y: 743, W: 320, H: 96}},
		// Pinch zoom 2: layout is untouched, the screen shows it larger.
		{"pinch 2", browser.Viewport{X: 20, Y: 1200, Zoom: 1, Scale: 2},
			tree.Rect{X: 300, Y: 1500, W: 160, H: 48}, tree.Rect{X: 570, Y: 743, W: 320, H: 96}},
		// Browser zoom 150%.
		{"zoom 1.5", browser.Viewport{Y: 1200, Zoom: 1.5, Scale: 1.5},
			tree.Rect{X: 450, Y: 2250, W: 240, H: 72}, tree.Rect{X: 460, Y: 593, W: 240, H: 72}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			box := tc.box
			btn := &tree.Node{Role: "button", Name: "Far", Bounds: &box, Ref: "e7", Key: "T:7"}
			text := &tree.Node{Role: tree.RoleText, Name: "no box"}
			sec := &tree.Node{Role: "section", Children: []*tree.Node{btn, text}}
			in := []*tree.Node{sec}

			out := onScreen(in, tc.vp, 10, 143)

			if len(out) != 1 || len(out[0].Children) != 2 {
				t.Fatalf("got %d nodes, want the section with its two children", len(out))
			}
			got := out[0].Children[0]
			if got.Bounds == nil || *got.Bounds != tc.want {
				t.Errorf("button box = %+v, want %+v", got.Bounds, tc.want)
			}
			if got.Ref != "e7" || got.Key != "T:7" || got.Name != "Far" {
				t.Errorf("button lost its identity: %+v", got)
			}
			if out[0].Bounds != nil || out[0].Children[1].Bounds != nil {
				t.Errorf("a node without a box got one")
			}
			// The input is the browser's: untouched.
			if got == btn || got.Bounds == btn.Bounds || out[0] == sec {
				t.Errorf("onScreen shares nodes or boxes with its input")
			}
			if *btn.Bounds != tc.box || sec.Children[0] != btn {
				t.Errorf("onScreen changed its input: %+v", *btn.Bounds)
			}
		})
	}
}

func TestOnScreenNoViewport(t *testing.T) {
	in := []*tree.Node{{Role: "button", Bounds: &tree.Rect{X: 1, Y: 2, W: 3, H: 4}}}
	if out := onScreen(in, browser.Viewport{}, 10, 20); out[0] != in[0] || *out[0].Bounds != (tree.Rect{X: 1, Y: 2, W: 3, H: 4}) {
		t.Errorf("a zero viewport moved the boxes: %+v", out[0].Bounds)
	}
	if out := onScreen(nil, browser.Viewport{Zoom: 1, Scale: 1}, 0, 0); out != nil {
		t.Errorf("onScreen(nil) = %v", out)
	}
}
