package browser

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// frameButtonsJS returns the box of every button of frame-boxes.html in
// the top document's CSS px, as the page's own layout places it: each
// frame's content box (its <iframe>'s border and padding inside its border
// box) added up, the frames' scroll included. Frames in shadow roots are
// not in window.frames: they list themselves in top.shadowFrames. The
// cross-site frame's button is at 20,10 in its document, 100×30.
const frameButtonsJS = `(() => {
	const out = {};
	const content = (f, cs) => [f.getBoundingClientRect().left + f.clientLeft + parseFloat(cs.paddingLeft),
		f.getBoundingClientRect().top + f.clientTop + parseFloat(cs.paddingTop)];
	const visit = w => {
		let doc;
		try { doc = w.document; } catch (e) { return; }
		for (const el of doc.querySelectorAll('button')) {
			const r = el.getBoundingClientRect();
			let x = r.left, y = r.top;
			for (let v = w; v !== window.top; v = v.parent) {
				const [cx, cy] = content(v.frameElement, v.parent.getComputedStyle(v.frameElement));
				x += cx;
				y += cy;
			}
			out[el.textContent.trim()] = [x + scrollX, y + scrollY, r.width, r.height];
		}
		for (let i = 0; i < w.frames.length; i++) visit(w.frames[i]);
	};
	visit(window);
	for (const w of top.shadowFrames || []) visit(w);
	const cross = document.getElementById('cross');
	const [cx, cy] = content(cross, getComputedStyle(cross));
	out['Button in cross'] = [cx + 20 + scrollX, cy + 10 + scrollY, 100, 30];
	return out;
})()`

// frameBoxButtons are the buttons of frame-boxes.html, one per frame.
var frameBoxButtons = []string{"Button in padded", "Button in uneven", "Button in scrolled", "Button in inner",
	"Button in bare", "Button in cross", "Button in open shadow", "Button in closed shadow"}

// TestFrameBoxes: nodes inside frames are where the page lays them out,
// whatever the frame's border and padding, its scroll, its nesting, its
// process, or a shadow root (open or closed) holding the <iframe>; at two
// device scale factors (the boxes are in layout px). Finding at a point
// inside each button names it.
func TestFrameBoxes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		zoom float64
	}{
		{"dsf1", nil, 1},
		{"dsf2", []string{"--force-device-scale-factor=2"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			b, err := New(ctx, Options{Args: tc.args})
			if err != nil {
				t.Fatalf("launch browser: %v", err)
			}
			defer b.Close()
			if _, err := b.Navigate(ctx, testSite.URL("/frame-boxes.html"), 0); err != nil {
				t.Fatal(err)
			}
			js[any](t, b, `scrollTo(0, 40); 1`)
			snap, _, err := b.Snapshot(ctx, SnapshotOptions{Full: true, Boxes: true})
			if err != nil {
				t.Fatal(err)
			}
			want := js[map[string][]float64](t, b, frameButtonsJS)
			checkFrameBoxes(t, snap, want, tc.zoom)
			findInFrames(t, b, want)
		})
	}
}

// checkFrameBoxes compares the boxes of frame-boxes.html's buttons with
// want (CSS px) times zoom.
func checkFrameBoxes(t *testing.T, snap *tree.Snapshot, want map[string][]float64, zoom float64) {
	t.Helper()
	for _, name := range frameBoxButtons {
		w := want[name]
		if len(w) != 4 {
			t.Fatalf("the page has no %q: %v", name, want)
		}
		n := find(snap.Root, "button", name)
		if n == nil || n.Bounds == nil {
			t.Errorf("%s: no node or no box in\n%s", name, tree.Format(snap, tree.Options{Full: true}))
			continue
		}
		got := []float64{n.Bounds.X, n.Bounds.Y, n.Bounds.W, n.Bounds.H}
		for i := range w {
			if math.Abs(got[i]-w[i]*zoom) > 0.01 {
				t.Errorf("%s: box %v, want %v × %g (x, y, w, h)", name, got, w, zoom)
				break
			}
		}
	}
}

// findInFrames finds at two points inside each button, one near its
// top-left corner and one near its bottom-right, in the viewport's CSS px
// as a screenshot shows them: a box that is off by a frame's border or
// padding misses one of them.
func findInFrames(t *testing.T, b *Browser, want map[string][]float64) {
	t.Helper()
	s := newActSession(b, action.Act)
	scroll := js[[]float64](t, b, `[scrollX, scrollY]`)
	for _, name := range frameBoxButtons {
		w := want[name]
		x, y := w[0]-scroll[0], w[1]-scroll[1]
		for _, at := range []string{
			fmt.Sprintf("%.0f,%.0f", math.Ceil(x+0.5), math.Ceil(y+0.5)),
			fmt.Sprintf("%.0f,%.0f", math.Floor(x+w[2]-0.5), math.Floor(y+w[3]-0.5)),
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			r, err := s.Run(ctx, action.Action{Kind: action.Find, At: at})
			cancel()
			if err != nil || !strings.HasPrefix(r.Text, fmt.Sprintf("button %q", name)) {
				t.Errorf("find at %s (in %q): %q, %v", at, name, r.Text, err)
			}
		}
	}
}
