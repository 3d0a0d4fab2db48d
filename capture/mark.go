//go:build linux

package capture

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Mark is one ref label to draw: Ref (like "e12") at the node's bounds Box,
// in the same coordinates as the image (screen pixels for a Grab image).
type Mark struct {
	Ref string
	Box Rect
}

// The look of a mark, as on web page screenshots (browser/marks.go): a
// 2-px outline in markColor and the ref in white on a markColor label.
var markColor = color.RGBA{0xd6, 0x24, 0x6e, 0xff}

const (
	outline = 2 // outline width in pixels, drawn inside the box
	padX    = 2 // label padding left and right of the text
)

// labelFace is the label font: an embedded 7x13 bitmap font, so marks look
// the same everywhere and need no installed fonts. Bitmap glyphs stay sharp
// at this size, where a scaled vector font would blur.
var labelFace = basicfont.Face7x13

// Draw draws marks onto img: for each mark a 2-px outline just inside its
// Box and a filled label with its Ref at the box's top-left corner, above
// the box when there is room in img, else inside its top edge.
//
// Marks and img share coordinates: a Grab image's Bounds() are its screen
// rectangle, so marks in screen coordinates land where the nodes are. To
// draw on an image whose Bounds() start at 0,0 but that shows the screen
// from origin o, shift the marks by -o first.
//
// A mark with an empty box or one wholly outside img is skipped; one partly
// outside is cut at img's edges, and its label is placed at the visible
// part's corner and pushed back inside img when it would stick out. All
// outlines are drawn before any label, so no outline crosses a label; labels
// of boxes closer than a label's size may still cover each other.
func Draw(img *image.RGBA, marks []Mark) {
	b := img.Bounds()
	var shown []Mark
	for _, m := range marks {
		if r := m.Box.Image(); !r.Empty() && r.Overlaps(b) {
			shown = append(shown, m)
		}
	}
	for _, m := range shown {
		drawOutline(img, m.Box.Image())
	}
	for _, m := range shown {
		drawLabel(img, m.Box.Image().Intersect(b), m.Ref)
	}
}

// drawOutline draws the outline inside r; draw clips it to img.
func drawOutline(img *image.RGBA, r image.Rectangle) {
	w := min(outline, r.Dx(), r.Dy())
	for _, side := range []image.Rectangle{
		image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+w), // top
		image.Rect(r.Min.X, r.Max.Y-w, r.Max.X, r.Max.Y), // bottom
		image.Rect(r.Min.X, r.Min.Y, r.Min.X+w, r.Max.Y), // left
		image.Rect(r.Max.X-w, r.Min.Y, r.Max.X, r.Max.Y), // right
	} {
		fill(img, side, markColor)
	}
}

// labelRect places a label of size w x h for the visible box r inside the
// image bounds b (as far as it fits).
func labelRect(b, r image.Rectangle, w, h int) image.Rectangle {
	x, y := r.Min.X, r.Min.Y-h
	if y < b.Min.Y {
		y = r.Min.Y // no room above: inside the box's top edge
	}
	x = max(min(x, b.Max.X-w), b.Min.X)
	y = max(min(y, b.Max.Y-h), b.Min.Y)
	return image.Rect(x, y, x+w, y+h)
}

// drawLabel draws ref on a filled label at the visible box r's corner.
func drawLabel(img *image.RGBA, r image.Rectangle, ref string) {
	m := labelFace.Metrics()
	h := (m.Ascent + m.Descent).Ceil()
	w := font.MeasureString(labelFace, ref).Ceil() + 2*padX
	lr := labelRect(img.Bounds(), r, w, h)
	fill(img, lr, markColor)
	d := font.Drawer{
		Dst:  img,
		Src:  image.NewUniform(color.White),
		Face: labelFace,
		Dot:  fixed.P(lr.Min.X+padX, lr.Min.Y+m.Ascent.Ceil()),
	}
	d.DrawString(ref)
}

// fill paints r (clipped to img) with c.
func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// PNG encodes img as PNG with the fastest compression. A screenshot goes
// straight to an agent, so time matters more than bytes: on a 1280x1024
// screen with 300 marks BestSpeed took 11 ms against the default level's
// 18 ms, for 32 KiB against 22 KiB. An image with no transparent pixel
// (every Grab image) is written as RGB, without an alpha channel.
func PNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode the screenshot as PNG: %w", err)
	}
	return buf.Bytes(), nil
}
