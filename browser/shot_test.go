package browser

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"testing"

	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// TestScreenshotShot: a screenshot's Shot places the picture in the page's
// tree, at device scale factors 1 and 2 and on a scrolled page: the
// button's box, mapped through it, is where the picture shows the button
// (painted green), for a picture of the viewport and one of the button
// alone, and once the button is fixed to the viewport.
func TestScreenshotShot(t *testing.T) {
	atScaleFactors(t, "/far-button.html", func(t *testing.T, ctx context.Context, b *Browser, zoom float64) {
		eval[string](t, b, `document.getElementById('far').style.cssText += ';background:#00ff00;border:0;color:#00ff00'; window.scrollTo(0, 1200); 'ok'`)
		btn := viewShows(ctx, t, b, zoom)
		h, err := b.handleOf(ctx, btn)
		if err != nil {
			t.Fatal(err)
		}
		out, err := b.screenshot(ctx, h, false)
		if err != nil {
			t.Fatal(err)
		}
		img, r := placed(t, out, *btn.Bounds)
		if d := img.Bounds(); abs(r.Min.X-d.Min.X) > 1 || abs(r.Min.Y-d.Min.Y) > 1 || abs(r.Max.X-d.Max.X) > 1 || abs(r.Max.Y-d.Max.Y) > 1 {
			t.Errorf("the button's own picture %v places its box at %v", d, r)
		}
		eval[string](t, b, `document.getElementById('far').style.cssText += ';position:fixed;left:50px;top:100px'; 'ok'`)
		viewShows(ctx, t, b, zoom)
	})
}

// viewShows takes a screenshot of the viewport and checks that the green
// button's box, read now, maps through its Shot to where it shows green.
func viewShows(ctx context.Context, t *testing.T, b *Browser, zoom float64) *tree.Node {
	t.Helper()
	snap, _, err := b.Snapshot(ctx, SnapshotOptions{Boxes: true})
	if err != nil {
		t.Fatal(err)
	}
	btn := find(snap.Root, "button", "Far button")
	if btn == nil || btn.Bounds == nil {
		t.Fatalf("no button with a box in:\n%s", tree.Format(snap, tree.Options{}))
	}
	out, err := b.screenshot(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	img, r := placed(t, out, *btn.Bounds)
	if !r.In(img.Bounds()) {
		t.Fatalf("the button maps to %v, outside the picture %v", r, img.Bounds())
	}
	inset := int(math.Ceil(zoom)) + 1
	for _, p := range []image.Point{
		{r.Min.X + inset, r.Min.Y + inset}, {r.Max.X - inset, r.Min.Y + inset},
		{r.Min.X + inset, r.Max.Y - inset}, {r.Max.X - inset, r.Max.Y - inset},
	} {
		if !green(img, p) {
			t.Errorf("the picture is not green at %v, inside the button's box %v", p, r)
		}
	}
	for _, p := range []image.Point{{r.Min.X - inset, r.Min.Y}, {r.Max.X + inset, r.Max.Y - inset}, {r.Min.X, r.Min.Y - inset}, {r.Max.X - inset, r.Max.Y + inset}} {
		if green(img, p) {
			t.Errorf("the picture is green at %v, outside the button's box %v", p, r)
		}
	}
	return btn
}

// placed decodes a screenshot and maps box through its Shot.
func placed(t *testing.T, out session.Output, box tree.Rect) (image.Image, image.Rectangle) {
	t.Helper()
	if out.Shot == nil || out.Shot.Scale <= 0 {
		t.Fatalf("the screenshot is not placed: %+v", out.Shot)
	}
	img, err := png.Decode(bytes.NewReader(out.Image))
	if err != nil {
		t.Fatal(err)
	}
	s := out.Shot
	return img, image.Rect(
		int(math.Round((box.X-s.X)*s.Scale)), int(math.Round((box.Y-s.Y)*s.Scale)),
		int(math.Round((box.X+box.W-s.X)*s.Scale)), int(math.Round((box.Y+box.H-s.Y)*s.Scale)))
}

func green(img image.Image, p image.Point) bool {
	r, g, b, _ := img.At(p.X, p.Y).RGBA()
	return r < 0x1000 && g > 0xf000 && b < 0x1000
}

func abs(v int) int { return max(v, -v) }
