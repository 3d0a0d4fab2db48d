package leaktest

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"testing"
)

// Pixels decodes a screenshot's PNG into RGBA pixels, for tests that two
// pictures of pages holding different secrets of the same length are the
// same, pixel for pixel: nothing of either secret shows.
func Pixels(t testing.TB, pic []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}
