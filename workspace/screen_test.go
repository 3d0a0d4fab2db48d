//go:build linux

package workspace_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/desktop"
	"github.com/canopy-dev/canopy/internal/chromiumui"
	"github.com/canopy-dev/canopy/keys"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/workspace"
	"github.com/canopy-dev/canopy/xinput"
)

// farButton is the page's title and its button's name; the button sits at
// 300,1500 CSS px, far below the first screenful.
const farButton = "Far button"

// TestPageOnScreen clicks a page's button with the X server's pointer at
// the screen point the workspace tree gives it, after scrolling it into
// view: the page's boxes must be screen pixels, like the desktop's around
// them. At the plain scale, at a device scale factor of 2 (Chromium's
// window then reports its own UI in AT-SPI in device-independent pixels
// but its web document in device pixels), and at 150% browser zoom.
func TestPageOnScreen(t *testing.T) {
	chromiumui.Relies(t, chromiumui.ScaledBoxes)
	for _, tc := range []struct {
		name  string
		args  []string
		zoom  int // ctrl+plus presses: 110%, 125%, 150%
		scale float64
	}{
		{"plain", nil, 0, 1},
		// The default 1280×800 window would be twice the screen's size.
		{"dsf2", []string{"--force-device-scale-factor=2", "--window-size=600,480"}, 0, 2},
		{"zoom150", nil, 3, 1.5},
	} {
		t.Run(tc.name, func(t *testing.T) { pageOnScreen(t, tc.args, tc.zoom, tc.scale) })
	}
}

func pageOnScreen(t *testing.T, args []string, zoomIn int, scale float64) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	w, err := workspace.Open(ctx, browser.Options{Args: args})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	x, err := xinput.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()

	screenDo(ctx, t, w, action.Action{Kind: action.Navigate, URL: testSite.URL("/far-button.html")})
	doc, _ := screenDocument(ctx, t, w)
	if zoomIn > 0 {
		cx, cy := centre(doc.Bounds)
		if err := x.RaiseAndFocusAt(ctx, cx, cy); err != nil {
			t.Fatal(err)
		}
		chord, err := keys.Parse("ctrl+plus")
		if err != nil {
			t.Fatal(err)
		}
		for range zoomIn {
			if err := x.Press(ctx, chord); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The browser zooms in its own time.
	screenPoll(ctx, t, w, "devicePixelRatio", func(v float64) bool { return math.Abs(v-scale) < 1e-6 })

	screenEval(ctx, t, w, `document.getElementById('far').scrollIntoView({block: 'center'})`, nil)
	var scrollY float64
	screenEval(ctx, t, w, `scrollY`, &scrollY)
	if scrollY < 1000 {
		t.Fatalf("the page scrolled to %g: the test needs the button far below the top", scrollY)
	}
	doc, btn := screenDocument(ctx, t, w)
	t.Logf("web document on screen at %+v, button at %+v, scrolled %g CSS px", *doc.Bounds, *btn.Bounds, scrollY)
	d, b := doc.Bounds, btn.Bounds
	if b.X < d.X || b.Y < d.Y || b.X+b.W > d.X+d.W || b.Y+b.H > d.Y+d.H {
		t.Errorf("the button's box %+v is not inside the web document's %+v", *b, *d)
	}
	// 160×48 CSS px.
	if math.Abs(b.W-160*scale) > 0.5 || math.Abs(b.H-48*scale) > 0.5 {
		t.Errorf("the button's box is %g×%g screen px, want %g×%g", b.W, b.H, 160*scale, 48*scale)
	}

	cx, cy := centre(b)
	if err := x.RaiseAndFocusAt(ctx, cx, cy); err != nil {
		t.Fatal(err)
	}
	if err := x.Click(ctx, cx, cy, xinput.Left, 1); err != nil {
		t.Fatalf("click at %d,%d: %v", cx, cy, err)
	}
	type click struct {
		X, Y    float64
		Trusted bool
	}
	var got click
	screenPoll(ctx, t, w, `document.body.dataset.clicked ? JSON.parse(document.body.dataset.clicked) : null`,
		func(v *click) bool {
			if v == nil {
				return false
			}
			got = *v
			return true
		})
	// The click landed at the button's centre (whole screen px apart).
	var want [2]float64
	screenEval(ctx, t, w, `(r => [r.x + r.width/2, r.y + r.height/2])(document.getElementById('far').getBoundingClientRect())`, &want)
	tol := 1/scale + 0.01
	if !got.Trusted || math.Abs(got.X-want[0]) > tol || math.Abs(got.Y-want[1]) > tol {
		t.Errorf("the button got %+v, want a trusted click at %v (CSS px in the viewport)", got, want)
	}
}

// TestPageHeadlessBoxes: a headless browser's page has no place on the
// screen; the workspace puts it at the end of the tree with its boxes as
// the browser gives them.
func TestPageHeadlessBoxes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	refs := tree.NewRefs()
	desk, err := desktop.Open(ctx, desktop.Options{Refs: refs, SkipWeb: true})
	if err != nil {
		t.Fatal(err)
	}
	w := workspace.New(desk, func(ctx context.Context) (*browser.Browser, error) {
		return browser.New(ctx, browser.Options{Refs: refs})
	})
	defer w.Close()
	screenDo(ctx, t, w, action.Action{Kind: action.Navigate, URL: testSite.URL("/far-button.html")})
	screenEval(ctx, t, w, `window.scrollTo(0, 1200)`, nil)
	snap, err := w.Snapshot(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	kids := snap.Root.Children
	btn := screenFind(kids[len(kids)-1], "button", farButton)
	if btn == nil || btn.Bounds == nil || *btn.Bounds != (tree.Rect{X: 300, Y: 1500, W: 160, H: 48}) {
		t.Errorf("headless page's button = %v, want its box in the page at 300,1500 160×48", btn)
	}
}

// screenDocument waits until the workspace shows the page in Chromium's
// web document with a box on the screen, and returns the document and the
// page's button. Chromium joins AT-SPI in its own time after it starts,
// hence the poll.
func screenDocument(ctx context.Context, t *testing.T, w *workspace.Workspace) (doc, btn *tree.Node) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var snap *tree.Snapshot
	for {
		var err error
		snap, err = w.Snapshot(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		tree.Walk(snap.Root, func(n *tree.Node) bool {
			if doc == nil && n.Role == tree.RoleDocument && n.Name == farButton && n.Bounds != nil {
				doc = n
			}
			return doc == nil
		})
		if doc != nil {
			if btn = screenFind(doc, "button", farButton); btn != nil && btn.Bounds != nil {
				return doc, btn
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no web document with the page's button on the screen:\n%s", tree.Format(snap, tree.Options{Full: true}))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// screenFind returns the first node with role and name under n.
func screenFind(n *tree.Node, role, name string) *tree.Node {
	return tree.Find(n, func(x *tree.Node) bool { return x.Role == role && x.Name == name })
}

// screenDo runs one action in the workspace and returns its text.
func screenDo(ctx context.Context, t *testing.T, w *workspace.Workspace, a action.Action) string {
	t.Helper()
	p, err := policy.New(action.Sensitive).Permit(ctx, policy.Request{Action: a})
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.Do(ctx, p, a, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	return out.Text
}

// screenEval evaluates script in the page and decodes its JSON value into
// v (nil: ignore it).
func screenEval(ctx context.Context, t *testing.T, w *workspace.Workspace, script string, v any) {
	t.Helper()
	text := screenDo(ctx, t, w, action.Action{Kind: action.Evaluate, Text: script})
	if v != nil {
		if err := json.Unmarshal([]byte(text), v); err != nil {
			t.Fatalf("%s returned %q: %v", script, text, err)
		}
	}
}

// screenPoll evaluates script until done accepts its value, for up to 10
// seconds: the browser reacts to X input in its own time, and nothing
// tells the test when.
func screenPoll[T any](ctx context.Context, t *testing.T, w *workspace.Workspace, script string, done func(T) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var v T
	for {
		screenEval(ctx, t, w, script, &v)
		if done(v) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still %v after 10 s", script, v)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// centre is the middle of a box, in whole pixels.
func centre(r *tree.Rect) (int, int) {
	return int(math.Round(r.X + r.W/2)), int(math.Round(r.Y + r.H/2))
}
