package browser

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/canopy-dev/canopy/tree"
)

// TestViewport reads the scroll offset and the zoom of a scrolled page at
// two device scale factors, and checks the unit the page tree's boxes are
// in: layout px, CSS px × Zoom.
func TestViewport(t *testing.T) {
	atScaleFactors(t, "/far-button.html", func(t *testing.T, ctx context.Context, b *Browser, zoom float64) {
		eval[any](t, b, `window.scrollTo(40, 1200)`)
		vp, err := b.Viewport(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The body is 3000 px tall but the page is not wide enough to
		// scroll sideways.
		if vp.X != 0 || vp.Y != 1200 || !near(vp.Zoom, zoom) || !near(vp.Scale, zoom) {
			t.Errorf("viewport = %+v, want 0,1200 zoom and scale %g", vp, zoom)
		}
		snap, _, err := b.Snapshot(ctx, SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		btn := find(snap.Root, "button", "Far button")
		if btn == nil || btn.Bounds == nil {
			t.Fatalf("no button with a box in:\n%s", tree.Format(snap, tree.Options{}))
		}
		// #far is at 300,1500 CSS px, 160×48.
		want := tree.Rect{X: 300 * zoom, Y: 1500 * zoom, W: 160 * zoom, H: 48 * zoom}
		if *btn.Bounds != want {
			t.Errorf("button box = %+v, want %+v (layout px)", *btn.Bounds, want)
		}
	})
}

// atScaleFactors runs f in a browser of its own at device scale factors 1
// and 2 (zoom), on path loaded.
func atScaleFactors(t *testing.T, path string, f func(t *testing.T, ctx context.Context, b *Browser, zoom float64)) {
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
			if _, err := b.Navigate(ctx, testSite.URL(path), 0); err != nil {
				t.Fatal(err)
			}
			f(t, ctx, b, tc.zoom)
		})
	}
}

// TestViewportDuringAlert reads the viewport while a JavaScript alert
// blocks the page: Chromium answers Page.getLayoutMetrics only after the
// alert, so the read must give up at once with an error that says why,
// not wait for its deadline.
func TestViewportDuringAlert(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/far-button.html")
	tab := chromedpTarget(b.tabCtx())
	opened := make(chan struct{})
	events := cdp.Events(b.tabCtx(), tab, page.JavascriptDialogOpening)
	go func() {
		for range events {
			close(opened)
			return
		}
	}()
	eval[any](t, b, `setTimeout(() => alert('Heads up'), 0)`)
	<-opened
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := b.Viewport(ctx)
	if err == nil || !strings.Contains(err.Error(), `blocked by a JavaScript alert ("Heads up")`) {
		t.Errorf("viewport during an alert: %v, want an error naming the alert", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the read waited for its deadline")
	}
	if _, err := cdp.Call(ctx, tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Viewport(ctx); err != nil {
		t.Errorf("viewport after the alert: %v", err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// find returns the first node with role and name under n.
func find(n *tree.Node, role, name string) *tree.Node {
	return tree.Find(n, func(x *tree.Node) bool { return x.Role == role && x.Name == name })
}
