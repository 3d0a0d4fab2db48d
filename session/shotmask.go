package session

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/canopy-dev/canopy/tree"
)

// A credential never leaves through pixels: before a screenshot leaves
// the session, every box on it of a node that shows a credential — a
// field that received one, a node whose name, value or description holds
// one of its shapes — is painted over with an opaque rectangle. The boxes
// are the tree's; the source says where its picture lies among them
// (Shot).

// Shot places a screenshot in the units of the source's tree: the
// picture's pixel (px, py) shows the tree's point (X + px/Scale,
// Y + py/Scale). On the desktop the tree is in screen pixels and a
// picture is a rectangle of the screen (Scale 1); on a page the tree is in
// the document's layout pixels (browser.Viewport) and a picture shows the
// visual viewport or one element's box.
type Shot struct {
	X, Y  float64 // the picture's top-left corner, in the tree's units
	Scale float64 // the picture's pixels per tree unit
	// Unseen says the picture may show a page the tree does not hold (the
	// desktop's print preview draws the page it holds): while a credential
	// was typed in the session, such a picture is refused.
	Unseen bool
}

// maskPad grows every painted box by this many of the picture's pixels on
// each side: anti-aliased glyphs and focus rings reach a little past a
// layout box.
const maskPad = 2

// rect is box in the picture's pixels, grown by maskPad.
func (s Shot) rect(box tree.Rect) image.Rectangle {
	x0 := math.Floor((box.X-s.X)*s.Scale) - maskPad
	y0 := math.Floor((box.Y-s.Y)*s.Scale) - maskPad
	x1 := math.Ceil((box.X+box.W-s.X)*s.Scale) + maskPad
	y1 := math.Ceil((box.Y+box.H-s.Y)*s.Scale) + maskPad
	const limit = 1 << 24 // far outside any picture: keeps the ints sane
	c := func(v float64) int { return int(max(-limit, min(limit, v))) }
	return image.Rect(c(x0), c(y0), c(x1), c(y1))
}

// usable says the shot can place boxes.
func (s *Shot) usable() bool {
	return s != nil && s.Scale > 0 && !math.IsInf(s.Scale, 0) && !math.IsNaN(s.X+s.Y+s.Scale)
}

// taint is one box that shows a credential, in the tree's units.
type taint struct {
	box  tree.Rect
	name string
}

// shown is what of a tree shows a credential.
type shown struct {
	// name is the first credential found showing, for a refusal's line.
	name string
	// boxes are the boxes to paint over: the innermost nodes that show a
	// credential (a node whose name comes from its content shows it
	// through its children), and every field that holds one; a node
	// without a box of its own gives its nearest ancestor's.
	boxes []taint
	// unplaced says a node shows a credential where neither it nor any
	// ancestor has a box: the picture cannot be masked.
	unplaced bool
}

// credentialMark starts the text that stands for a credential.
const credentialMark = "«credential "

// markName is the name of the first credential mark in s, or "".
func markName(s string) string {
	i := strings.Index(s, credentialMark)
	if i < 0 {
		return ""
	}
	rest := s[i+len(credentialMark):]
	if j := strings.Index(rest, "»"); j >= 0 {
		return rest[:j]
	}
	return rest
}

// shows says which credential the node n shows, "" for none, and whether
// n is a field that holds one (painted over even when its children say
// so too). A password field's value shows as bullets, in pixels and in
// print alike. For print, a node's URL (a link's, which a PDF keeps) and
// a document's title count; in pixels they do not show.
func (r *redactor) shows(n *tree.Node, print bool) (name string, field bool) {
	texts := []string{n.Description}
	if !n.States.Has(tree.Protected) {
		if n.Secret != nil && n.Value != "" {
			return n.Secret.Name, true
		}
		if m, ok := r.masks[n.Ref]; ok && n.Value != "" {
			return m, true
		}
		texts = append(texts, n.Value)
	}
	if print || (n.Role != tree.RoleDocument && n.Role != tree.RoleFrame) {
		texts = append(texts, n.Name)
	}
	if print {
		texts = append(texts, n.URL)
	}
	for _, t := range texts {
		if t == "" {
			continue
		}
		if m := markName(t); m != "" {
			return m, false
		}
		if m := markName(r.text(t)); m != "" {
			return m, false
		}
	}
	return "", false
}

// showing finds what of the tree under root shows a credential.
func (r *redactor) showing(root *tree.Node, print bool) shown {
	var sh shown
	var walk func(n *tree.Node, box *tree.Rect) bool
	walk = func(n *tree.Node, box *tree.Rect) bool {
		if b := n.Bounds; b != nil && b.W > 0 && b.H > 0 {
			box = b
		}
		inner := false
		for _, c := range n.Children {
			inner = walk(c, box) || inner
		}
		name, field := r.shows(n, print)
		if name == "" {
			return inner
		}
		if sh.name == "" {
			sh.name = name
		}
		if field || !inner {
			if box == nil {
				sh.unplaced = true
			} else {
				sh.boxes = append(sh.boxes, taint{box: *box, name: name})
			}
		}
		return true
	}
	if root != nil {
		walk(root, nil)
	}
	return sh
}

// The look of a mask: an opaque dark box, the credential's name on it
// where it fits, in an embedded bitmap font (the same everywhere).
var (
	maskColor  = color.RGBA{0x30, 0x30, 0x30, 0xff}
	maskText   = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
	maskFace   = basicfont.Face7x13
	maskIndent = 3
)

// paintOver paints every box of taints over the PNG pic, placed by shot,
// and returns the new PNG; pic as it is when no box meets it.
func paintOver(pic []byte, shot Shot, taints []taint) ([]byte, error) {
	src, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		return nil, fmt.Errorf("read the screenshot to paint over a credential: %w", err)
	}
	b := src.Bounds()
	var rects []image.Rectangle
	var names []string
	for _, t := range taints {
		r := shot.rect(t.box).Add(b.Min)
		if r.Overlaps(b) {
			rects, names = append(rects, r.Intersect(b)), append(names, t.name)
		}
	}
	if len(rects) == 0 {
		return pic, nil
	}
	img := image.NewRGBA(b)
	draw.Draw(img, b, src, b.Min, draw.Src)
	for _, r := range rects {
		draw.Draw(img, r, image.NewUniform(maskColor), image.Point{}, draw.Src)
	}
	for i, r := range rects {
		label(img, r, "credential "+names[i])
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("write the screenshot with its credentials painted over: %w", err)
	}
	return buf.Bytes(), nil
}

// label writes text on the mask r when a line of it fits, cut at r's
// right edge.
func label(img *image.RGBA, r image.Rectangle, text string) {
	m := maskFace.Metrics()
	h := (m.Ascent + m.Descent).Ceil()
	if r.Dy() < h || r.Dx() < 2*maskIndent+maskFace.Advance {
		return
	}
	dst, ok := img.SubImage(r).(*image.RGBA)
	if !ok {
		return
	}
	d := font.Drawer{
		Dst:  dst,
		Src:  image.NewUniform(maskText),
		Face: maskFace,
		Dot:  fixed.P(r.Min.X+maskIndent, r.Min.Y+(r.Dy()-h)/2+m.Ascent.Ceil()),
	}
	d.DrawString(text)
}
