//go:build linux

package capture

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"testing"
)

var grey = color.RGBA{0x80, 0x80, 0x80, 0xff}

// canvas is a grey image covering b, like a Grab of the screen area b.
func canvas(b image.Rectangle) *image.RGBA {
	img := image.NewRGBA(b)
	draw.Draw(img, b, image.NewUniform(grey), image.Point{}, draw.Src)
	return img
}

// changed lists the pixels of img that are no longer grey.
func changed(img *image.RGBA) []image.Point {
	var out []image.Point
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if img.RGBAAt(x, y) != grey {
				out = append(out, image.Pt(x, y))
			}
		}
	}
	return out
}

// labelH is a label's height: the 7x13 font's ascent plus descent.
const labelH = 13

// TestDraw draws one mark on an image covering the screen area from 20,20:
// the outline and the label change, nothing else does.
func TestDraw(t *testing.T) {
	img := canvas(image.Rect(20, 20, 320, 220))
	box := Rect{X: 50, Y: 50, W: 100, H: 40}
	Draw(img, []Mark{{Ref: "e12", Box: box}})

	label := image.Rect(50, 50-labelH, 50+3*7+2*padX, 50) // above the box
	for _, p := range []image.Point{
		{50, 50}, {149, 50}, {50, 89}, {149, 89}, {51, 70}, {148, 70}, {100, 51}, {100, 88}, // outline
		label.Min, {label.Min.X + 1, label.Max.Y - 1}, {label.Max.X - 1, label.Min.Y}, // label padding
	} {
		if got := img.RGBAAt(p.X, p.Y); got != markColor {
			t.Errorf("pixel %v = %v, want the mark colour", p, got)
		}
	}
	white := 0
	for _, p := range changed(img) {
		inOutline := p.In(box.Image()) && !p.In(box.Image().Inset(outline))
		if !inOutline && !p.In(label) {
			t.Errorf("pixel %v changed outside the outline and the label", p)
		}
		if img.RGBAAt(p.X, p.Y) == (color.RGBA{0xff, 0xff, 0xff, 0xff}) {
			white++
		}
	}
	if white == 0 {
		t.Error("the label has no white text")
	}
	if got := img.RGBAAt(52, 52); got != grey {
		t.Errorf("pixel inside the box = %v, want it left alone", got)
	}
}

// TestDrawEdges keeps labels inside the image and skips marks outside it.
func TestDrawEdges(t *testing.T) {
	b := image.Rect(0, 0, 200, 100)
	for _, tc := range []struct {
		name  string
		mark  Mark
		label image.Rectangle // where the label must be; empty: no change at all
	}{
		{"top edge: label inside the box", Mark{"e1", Rect{10, 0, 50, 50}}, image.Rect(10, 0, 10+2*7+2*padX, labelH)},
		{"right edge: label pushed left", Mark{"e12345", Rect{190, 40, 30, 30}}, image.Rect(200-6*7-2*padX, 40-labelH, 200, 40)},
		{"above and left: label at the visible corner", Mark{"e7", Rect{-20, -20, 60, 60}}, image.Rect(0, 0, 2*7+2*padX, labelH)},
		{"outside", Mark{"e2", Rect{300, 10, 20, 20}}, image.Rectangle{}},
		{"empty box", Mark{"e3", Rect{30, 30, 0, 20}}, image.Rectangle{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := canvas(b)
			Draw(img, []Mark{tc.mark})
			diff := changed(img)
			if tc.label.Empty() {
				if len(diff) != 0 {
					t.Errorf("%d pixels changed, want none", len(diff))
				}
				return
			}
			for _, p := range []image.Point{tc.label.Min, {tc.label.Max.X - 1, tc.label.Max.Y - 1}} {
				if got := img.RGBAAt(p.X, p.Y); got != markColor {
					t.Errorf("label corner %v = %v, want the mark colour", p, got)
				}
			}
			// The label ends where it should: the pixel past it is not label.
			if p := image.Pt(tc.label.Max.X, tc.label.Min.Y+labelH/2); p.In(b) && !p.In(tc.mark.Box.Image()) {
				if got := img.RGBAAt(p.X, p.Y); got != grey {
					t.Errorf("pixel %v right of the label = %v, want it left alone", p, got)
				}
			}
		})
	}
}

// TestDrawSmallBox fills a box smaller than two outlines instead of
// drawing past it.
func TestDrawSmallBox(t *testing.T) {
	img := canvas(image.Rect(0, 0, 100, 100))
	box := Rect{X: 40, Y: 50, W: 3, H: 1}
	Draw(img, []Mark{{Ref: "e9", Box: box}})
	for _, p := range changed(img) {
		label := image.Rect(40, 50-labelH, 40+2*7+2*padX, 50)
		if !p.In(box.Image()) && !p.In(label) {
			t.Errorf("pixel %v changed outside the box and the label", p)
		}
	}
}

func TestPNG(t *testing.T) {
	img := canvas(image.Rect(5, 5, 45, 25))
	data, err := PNG(img)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if dec.Bounds() != image.Rect(0, 0, 40, 20) {
		t.Errorf("decoded bounds %v, want 40x20 from 0,0", dec.Bounds())
	}
	if got := color.RGBAModel.Convert(dec.At(3, 3)); got != grey {
		t.Errorf("decoded pixel %v, want %v", got, grey)
	}
	// IHDR's colour type, after the signature, chunk length and type,
	// width, height and bit depth: 2 is RGB, 6 would be RGBA.
	if ct := data[8+4+4+4+4+1]; ct != 2 {
		t.Errorf("PNG colour type %d, want 2 (RGB): screenshots are opaque", ct)
	}
}
