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
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/workspace"
)

// TestCredentialScreenshotOnScreen: a credential typed into the headful
// page's plain text field, which the page echoes, is painted over in a
// screenshot of the browser's window (the desktop's, placed in screen px)
// and in one of the page's form (the browser's, moved to the screen): two
// credentials of the same length give the same pictures.
func TestCredentialScreenshotOnScreen(t *testing.T) {
	var pics [2][]*image.RGBA
	for i, secret := range []string{"s3cr3t-Pw!", "Zq9@xK2#mB"} {
		pics[i] = shotsOnScreen(t, secret)
	}
	for k, name := range []string{"screenshot", "screenshot role:form"} {
		a, b := pics[0][k], pics[1][k]
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

// shotsOnScreen types the credential tok = secret into the echo page's
// Token field, and takes a screenshot of the window in front and one of
// the form.
func shotsOnScreen(t *testing.T, secret string) []*image.RGBA {
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
	var pics []*image.RGBA
	for _, a := range steps {
		r, err := s.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if strings.Contains(r.Text, secret) {
			t.Errorf("%s shows the credential:\n%s", a, r.Text)
		}
		if r.Image != nil {
			pics = append(pics, decodeRGBA(t, r.Image))
		}
	}
	return pics
}

// decodeRGBA decodes a PNG into RGBA pixels.
func decodeRGBA(t *testing.T, pic []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}
