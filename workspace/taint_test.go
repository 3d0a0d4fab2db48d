//go:build linux

package workspace_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/leaktest"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/workspace"
)

// TestCredentialScreenshotOnScreen: a credential typed into the headful
// page's plain text field, which the page echoes, is painted over in a
// screenshot of the browser's window (the desktop's, placed in screen px)
// and in one of the page's form (the browser's, moved to the screen): two
// credentials of the same length give the same pictures.
func TestCredentialScreenshotOnScreen(t *testing.T) {
	var pics [2][]*image.RGBA
	var pageAreas [2]image.Rectangle
	for i, secret := range []string{"s3cr3t-Pw!", "Zq9@xK2#mB"} {
		pics[i], pageAreas[i] = shotsOnScreen(t, secret)
	}
	for k, name := range []string{"screenshot", "screenshot role:form"} {
		a, b := pics[0][k], pics[1][k]
		if k == 0 {
			// The window's own UI (the tab strip, the toolbar) animates on
			// its own: compare the page, where the credential is.
			a, b = pagePart(a, pageAreas[0]), pagePart(b, pageAreas[1])
		}
		if a.Bounds() != b.Bounds() || !bytes.Equal(a.Pix, b.Pix) {
			t.Errorf("%s: the pictures of two credentials differ (%v, %v): a credential shows", name, a.Bounds(), b.Bounds())
			if d := os.Getenv("CANOPY_TEST_SHOTS"); d != "" {
				for j, p := range []*image.RGBA{a, b} {
					var buf bytes.Buffer
					_ = png.Encode(&buf, p)
					_ = os.WriteFile(filepath.Join(d, fmt.Sprintf("ws-%d-%d.png", k, j)), buf.Bytes(), 0o644)
				}
			}
		}
	}
}

// pagePart is the part of a window's picture that shows the page.
func pagePart(pic *image.RGBA, page image.Rectangle) *image.RGBA {
	out := image.NewRGBA(page.Intersect(pic.Bounds()).Sub(page.Min))
	draw.Draw(out, out.Bounds(), pic, page.Min, draw.Src)
	return out
}

// shotsOnScreen types the credential tok = secret into the echo page's
// Token field, and takes a screenshot of the window in front and one of
// the form. page is where the page shows in the window's picture, from
// the desktop's boxes of the window and its web document.
func shotsOnScreen(t *testing.T, secret string) (pics []*image.RGBA, page image.Rectangle) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, fmt.Appendf(nil, `{"tok": {"value": %q}}`, secret), 0o600); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Open(action.Act, policy.Secrets(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := workspace.Open(ctx, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s := session.New(w, pol, session.Options{})
	steps, err := action.ParseSteps(`navigate "` + testSite.URL("/echo.html") + `"; type role:textbox name:Token credential:tok; screenshot; screenshot role:form`)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range steps {
		r, err := s.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if strings.Contains(r.Text, secret) {
			t.Errorf("%s shows the credential:\n%s", a, r.Text)
		}
		if r.Image != nil {
			pics = append(pics, leaktest.Pixels(t, r.Image))
		}
	}
	snap, err := w.Snapshot(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	var win, doc *tree.Node
	var walk func(n, in *tree.Node)
	walk = func(n, in *tree.Node) {
		if n.Role == "window" || n.Role == "frame" {
			in = n
		}
		if doc == nil && w.Desktop().IsWebDocument(n) {
			win, doc = in, n
		}
		for _, c := range n.Children {
			walk(c, in)
		}
	}
	walk(snap.Root, nil)
	if win == nil || doc == nil || win.Bounds == nil || doc.Bounds == nil {
		t.Fatalf("the desktop shows no browser window with its page")
	}
	b := doc.Bounds
	page = image.Rect(int(b.X-win.Bounds.X), int(b.Y-win.Bounds.Y), int(b.X-win.Bounds.X+b.W), int(b.Y-win.Bounds.Y+b.H))
	if page.Intersect(pics[0].Bounds()).Empty() {
		t.Fatalf("the page (%v) is not in the window's picture (%v)", page, pics[0].Bounds())
	}
	return pics, page
}
