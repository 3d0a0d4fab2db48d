package browser

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// frameButtonsJS returns the box of every button of frame-boxes.html in
// the top document's CSS px, as the page's own layout places it: each
// frame's content box (its <iframe>'s border and padding inside its border
// box) added up, the frames' scroll and CSS zoom included. Frames in
// shadow roots are not in window.frames: they list themselves in
// top.shadowFrames. The cross-site frame's button is at 20,10 in its
// document, 100×30.
const frameButtonsJS = `(() => {
	const out = {};
	// The content box of an <iframe> in its window's CSS px, and its CSS
	// zoom, which scales its content too.
	const content = f => {
		const r = f.getBoundingClientRect(), cs = f.ownerDocument.defaultView.getComputedStyle(f), z = f.currentCSSZoom;
		return [r.left + (f.clientLeft + parseFloat(cs.paddingLeft)) * z, r.top + (f.clientTop + parseFloat(cs.paddingTop)) * z, z];
	};
	const visit = w => {
		let doc;
		try { doc = w.document; } catch (e) { return; }
		for (const el of doc.querySelectorAll('button')) {
			const r = el.getBoundingClientRect();
			let [x, y, width, height] = [r.left, r.top, r.width, r.height];
			for (let v = w; v !== window.top; v = v.parent) {
				const [cx, cy, z] = content(v.frameElement);
				[x, y, width, height] = [cx + x * z, cy + y * z, width * z, height * z];
			}
			out[el.textContent.trim()] = [x + scrollX, y + scrollY, width, height];
		}
		for (let i = 0; i < w.frames.length; i++) visit(w.frames[i]);
	};
	visit(window);
	for (const w of top.shadowFrames || []) visit(w);
	const [cx, cy] = content(document.getElementById('cross'));
	out['Button in cross'] = [cx + 20 + scrollX, cy + 10 + scrollY, 100, 30];
	return out;
})()`

// frameBoxButtons are the buttons of frame-boxes.html, one per frame.
var frameBoxButtons = []string{"Button in padded", "Button in uneven", "Button in scrolled", "Button in inner",
	"Button in bare", "Button in cross", "Button in open shadow", "Button in closed shadow", "Button in zoomed"}

// TestFrameBoxes: nodes inside frames are where the page lays them out,
// whatever the frame's border and padding, its scroll, its nesting, its
// process, a shadow root (open or closed) holding the <iframe>, or a CSS
// zoom; at two device scale factors (the boxes are in layout px). Finding
// at a point inside each button names it, and the DOM snapshots place each
// frame where DOM.getFrameOwner and DOM.getBoxModel do.
func TestFrameBoxes(t *testing.T) {
	atScaleFactors(t, "/frame-boxes.html", func(t *testing.T, ctx context.Context, b *Browser, zoom float64) {
		js[any](t, b, `scrollTo(0, 40); 1`)
		snap, _, err := b.Snapshot(ctx, SnapshotOptions{Full: true, Boxes: true})
		if err != nil {
			t.Fatal(err)
		}
		want := js[map[string][]float64](t, b, frameButtonsJS)
		checkFrameBoxes(t, snap, want, zoom)
		findInFrames(t, b, want)
		checkPlacesAgree(t, b)
	})
}

// TestFramesOnDemand: on a page read on demand, which takes no DOM
// snapshot of the main target, every frame still finds its <iframe>.
func TestFramesOnDemand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := New(ctx, Options{OnDemandElements: 5})
	if err != nil {
		t.Fatalf("launch browser: %v", err)
	}
	defer b.Close()
	b.largeAt = 5 // a large page's read: no DOM snapshot
	snap, st := load(t, b, "/frame-boxes.html")
	text := tree.Format(snap, tree.Options{Full: true})
	if len(snap.Header.Notes) == 0 || !strings.HasPrefix(snap.Header.Notes[0], "large page") {
		t.Fatalf("the page was not read on demand (%+v):\n%s", st, text)
	}
	for _, name := range frameBoxButtons {
		if n := find(snap.Root, "button", name); n == nil {
			t.Errorf("no %q in\n%s", name, text)
		}
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

// checkPlacesAgree: where the DOM snapshots place each frame's content is
// where DOM.getFrameOwner and DOM.getBoxModel place it, frame by frame:
// with nothing known from the snapshots, and with a third of the frames
// placed from them, a third asked for their box, a third for their owner
// and box, at the same time.
func checkPlacesAgree(t *testing.T, b *Browser) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tab := chromedp.FromContext(b.tabCtx()).Target
	frames, err := b.discoverFrames(ctx, tab, targetID(b.tabCtx()))
	if err != nil {
		t.Fatal(err)
	}
	f := b.fetch(ctx, frames, true)
	for _, blind := range []struct {
		name string
		keep func(i int) (owner, edges bool)
	}{
		{"all asked", func(int) (bool, bool) { return false, false }},
		{"a third of each", func(i int) (bool, bool) { return i%3 != 2, i%3 == 0 }},
	} {
		asked := &fetched{owners: map[cdp.FrameID]cdp.BackendNodeID{}, borders: map[cdp.FrameID]offset{}, dom: map[target.ID]*domFacts{}}
		for tid, d := range f.dom {
			c := *d
			c.frames = frameFacts{owners: map[cdp.FrameID]cdp.BackendNodeID{}, edges: map[cdp.BackendNodeID]edges{}, views: d.frames.views}
			i := 0
			for fid, id := range d.frames.owners {
				owner, edges := blind.keep(i)
				if owner {
					c.frames.owners[fid] = id
				}
				if e, ok := d.frames.edges[id]; ok && edges {
					c.frames.edges[id] = e
				}
				i++
			}
			asked.dom[tid] = &c
		}
		b.placeFrames(ctx, frames, asked, layoutZoom(ctx, tab))
		for _, fr := range frames[1:] {
			got, want := f.borders[fr.id], asked.borders[fr.id]
			if f.owners[fr.id] != asked.owners[fr.id] || math.Abs(got.x-want.x) > 0.01 || math.Abs(got.y-want.y) > 0.01 {
				t.Errorf("%s: frame %s: owner %d at %+v from the DOM snapshots, %d at %+v asked",
					blind.name, fr.url, f.owners[fr.id], got, asked.owners[fr.id], want)
			}
		}
	}
}

func TestParseEdges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want edges
		ok   bool
	}{
		{"7px", edges{7, 7, 7, 7}, true},
		{"4px 0px", edges{4, 0, 4, 0}, true},
		{"8px 2px 2.5px", edges{8, 2, 2.5, 2}, true},
		{"2px 3px 17px 23px", edges{2, 3, 17, 23}, true},
		{"", edges{}, false},
		{"1px 2px 3px 4px 5px", edges{}, false},
		{"1em", edges{}, false},
		{"medium", edges{}, false},
	} {
		if got, ok := parseEdges(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("parseEdges(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestContentOffset(t *testing.T) {
	e := edges{top: 18, right: 12, bottom: 10, left: 16} // a 7px border, 11 5 3 9 padding
	for _, tc := range []struct {
		name string
		box  *tree.Rect
		view *size
		zoom float64
		want offset
	}{
		{"at the tab's zoom", &tree.Rect{W: 348, H: 124}, &size{320, 96}, 1, offset{16, 18}},
		{"device scale factor 2", &tree.Rect{W: 696, H: 248}, &size{640, 192}, 2, offset{32, 36}},
		{"a viewport rounded", &tree.Rect{W: 348.4, H: 124.4}, &size{320, 96}, 1, offset{16, 18}},
		{"a CSS zoom of 1.5", &tree.Rect{W: 522, H: 186}, &size{480, 144}, 1, offset{24, 27}},
		{"no viewport", &tree.Rect{W: 522, H: 186}, nil, 2, offset{32, 36}},
		{"no zoom, no viewport", nil, nil, 0, offset{16, 18}},
	} {
		if got := contentOffset(e, tc.box, tc.view, tc.zoom); math.Abs(got.x-tc.want.x) > 1e-9 || math.Abs(got.y-tc.want.y) > 1e-9 {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
