package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/tree"
)

const shotSecret = "s3cr3t-Pw!"

// shotPage is a page in memory that shows a credential: a field that
// received it, a paragraph that echoes it (named by its text, which shows
// it too), and a heading that does not. Its screenshots are white
// pictures placed by shot; its prints are pdf.
type shotPage struct {
	fakeSource
	shot     *Shot
	pdf      []byte
	unboxed  bool // the echo and all around it have no box
	noSecret bool // the page shows no credential
	boxReads int  // SnapshotBoxes calls
}

func (p *shotPage) Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error) {
	echo := "Echo: " + shotSecret
	field := shotSecret
	if p.noSecret {
		echo, field = "Echo:", ""
	}
	para := &tree.Node{Role: "paragraph", Name: echo, Key: "k3", Bounds: &tree.Rect{X: 10, Y: 40, W: 80, H: 10},
		Children: []*tree.Node{{Role: tree.RoleText, Name: echo, Key: "k4", Bounds: &tree.Rect{X: 10, Y: 40, W: 30, H: 10}}}}
	if p.unboxed {
		para.Bounds, para.Children[0].Bounds = nil, nil
	}
	root := &tree.Node{Role: tree.RoleDocument, Name: "Echo", Children: []*tree.Node{
		{Role: "heading", Name: "Echo", Key: "k1", Bounds: &tree.Rect{X: 10, Y: 0, W: 40, H: 10}},
		{Role: "textbox", Name: "Token", Ref: "e2", Key: "k2", Value: field, Bounds: &tree.Rect{X: 10, Y: 20, W: 50, H: 10}},
		para,
	}}
	return &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "Echo"}, Root: root}, nil
}

func (p *shotPage) SnapshotBoxes(ctx context.Context) (*tree.Snapshot, error) {
	p.boxReads++
	return p.Snapshot(ctx, false)
}

func (p *shotPage) Do(ctx context.Context, pm *policy.Permit, a action.Action, target, to *tree.Node) (Output, error) {
	if err := pm.Allows(a.Kind); err != nil {
		return Output{}, err
	}
	switch a.Kind {
	case action.Screenshot:
		return Output{Image: whitePNG(200, 120), Shot: p.shot}, nil
	case action.Print:
		return Output{File: &File{Name: "Echo.pdf", Data: p.pdf}}, nil
	}
	return Output{}, nil
}

func whitePNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// shotSession is a session at act over page, in which the credential tok
// was typed into e2.
func shotSession(t *testing.T, page *shotPage) *Session {
	t.Helper()
	s := New(page, policy.New(action.Act), Options{Downloads: t.TempDir()})
	s.red.add(shotSecret, "tok")
	s.red.mask("e2", "tok")
	return s
}

func masked(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	mr, mg, mb, _ := maskColor.RGBA()
	tr, tg, tb, _ := maskText.RGBA()
	return r == mr && g == mg && b == mb || r == tr && g == tg && b == tb
}

// TestShotMask: a screenshot has the field and the echo's text painted
// over where the Shot places them (a picture of the tree from 5,−10 at
// 2 px per unit), with a margin of maskPad, and nothing else.
func TestShotMask(t *testing.T) {
	page := &shotPage{shot: &Shot{X: 5, Y: -10, Scale: 2}}
	s := shotSession(t, page)
	r, err := runStep(t, s, "screenshot")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(r.Image))
	if err != nil {
		t.Fatal(err)
	}
	// Tree box → picture: x' = (x−5)·2, y' = (y+10)·2.
	field := image.Rect(10, 60, 110, 80)       // 10,20 50×10
	echo := image.Rect(10, 100, 70, 120)       // 10,40 30×10, cut at the bottom
	heading := image.Rect(10, 20, 90, 40)      // 10,0 40×10: no credential
	paragraph := image.Rect(70, 100, 170, 120) // the paragraph beyond its text
	for _, c := range []struct {
		r    image.Rectangle
		want bool
	}{{field, true}, {echo, true}, {heading, false}, {paragraph, false}} {
		for y := c.r.Min.Y; y < c.r.Max.Y; y++ {
			for x := c.r.Min.X + maskPad; x < c.r.Max.X-maskPad; x++ {
				if got := masked(img.At(x, y)); got != c.want {
					t.Fatalf("pixel %d,%d of %v: masked %v, want %v", x, y, c.r, got, c.want)
				}
			}
		}
	}
	for _, p := range []image.Point{{field.Min.X - maskPad, field.Min.Y - maskPad}, {field.Max.X + maskPad - 1, field.Max.Y + maskPad - 1}} {
		if !masked(img.At(p.X, p.Y)) {
			t.Errorf("the margin at %v is not painted", p)
		}
	}
	if masked(img.At(field.Max.X+maskPad, field.Min.Y)) {
		t.Errorf("painted past the margin")
	}
	if page.boxReads != 1 {
		t.Errorf("read the boxes %d times, want once", page.boxReads)
	}
}

// TestShotMaskSaved: a screenshot given a path is saved masked.
func TestShotMaskSaved(t *testing.T) {
	s := shotSession(t, &shotPage{shot: &Shot{Scale: 1}})
	r, err := runStep(t, s, `screenshot "shot.png"`)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(r.File)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !masked(img.At(30, 25)) {
		t.Errorf("the saved screenshot shows the field")
	}
}

// TestShotRefused: a screenshot is refused, with one line that names the
// credential by name, when what shows it cannot be placed: no box, no
// Shot, or a picture that shows a page the tree does not hold.
func TestShotRefused(t *testing.T) {
	for name, page := range map[string]*shotPage{
		"no box":  {shot: &Shot{Scale: 1}, unboxed: true},
		"no shot": {},
		"unseen":  {shot: &Shot{Scale: 1, Unseen: true}},
	} {
		t.Run(name, func(t *testing.T) {
			s := shotSession(t, page)
			r, err := runStep(t, s, "screenshot")
			if err == nil || !errors.Is(err, policy.ErrDenied) || !strings.HasPrefix(err.Error(), "screenshot is refused") {
				t.Fatalf("screenshot: %v, want a refusal", err)
			}
			if r.Image != nil || strings.Contains(err.Error(), shotSecret) || strings.Contains(err.Error(), "\n") {
				t.Errorf("the refusal %q leaks, or an image came back", err)
			}
		})
	}
}

// TestShotNothingShows: with nothing on the page showing a credential the
// picture leaves as the source made it, unplaced or not, and the boxes are
// not read again.
func TestShotNothingShows(t *testing.T) {
	page := &shotPage{noSecret: true}
	s := shotSession(t, page)
	r, err := runStep(t, s, "screenshot")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Image, whitePNG(200, 120)) || page.boxReads != 0 {
		t.Errorf("the picture changed, or the boxes were read (%d)", page.boxReads)
	}
}

// TestPrintRefused: print is refused while a credential is on the page,
// and when the PDF holds one the page did not show; no file is written.
func TestPrintRefused(t *testing.T) {
	clean := minimalPDF("Echo:")
	for name, page := range map[string]*shotPage{
		"on the page": {pdf: clean},
		"in the PDF":  {noSecret: true, pdf: minimalPDF("Echo: " + strings.ToUpper(shotSecret))},
		"not a PDF":   {noSecret: true, pdf: []byte("garbage")},
	} {
		t.Run(name, func(t *testing.T) {
			s := shotSession(t, page)
			_, err := runStep(t, s, "print")
			if err == nil || !errors.Is(err, policy.ErrDenied) || !strings.HasPrefix(err.Error(), "print is refused") || strings.Contains(err.Error(), shotSecret) {
				t.Fatalf("print: %v, want a refusal", err)
			}
			if files, _ := os.ReadDir(s.downloads()); len(files) > 0 {
				t.Errorf("print wrote %s", files[0].Name())
			}
		})
	}
	s := shotSession(t, &shotPage{noSecret: true, pdf: clean})
	if _, err := runStep(t, s, "print"); err != nil {
		t.Errorf("print of a page without a credential: %v", err)
	}
}

// minimalPDF is a one-object PDF that shows text in a simple font.
func minimalPDF(text string) []byte {
	content := fmt.Sprintf("BT /F1 12 Tf 10 10 Td (%s) Tj ET", text)
	return fmt.Appendf(nil, "%%PDF-1.4\n1 0 obj\n<</Length %d>>\nstream\n%s\nendstream\nendobj\n%%%%EOF\n", len(content), content)
}

// TestShotRect: a box maps to the picture's pixels through the Shot, grown
// by maskPad and rounded outwards.
func TestShotRect(t *testing.T) {
	s := Shot{X: 100.5, Y: 20, Scale: 1.5}
	got := s.rect(tree.Rect{X: 110.5, Y: 30.2, W: 10, H: 5})
	want := image.Rect(15-maskPad, 15-maskPad, 30+maskPad, 23+maskPad)
	if got != want {
		t.Errorf("rect = %v, want %v", got, want)
	}
	if (&Shot{Scale: 0}).usable() || (*Shot)(nil).usable() || !(&Shot{Scale: 2}).usable() {
		t.Errorf("usable is wrong")
	}
}

// TestShowsField: a field that received a credential shows it, unless it
// is a password field (bullets); a document's title shows only in print,
// a link's address too.
func TestShowsField(t *testing.T) {
	var r redactor
	r.add(shotSecret, "tok")
	r.mask("e2", "tok")
	field := &tree.Node{Role: "textbox", Ref: "e2", Value: "«credential tok»"}
	if name, isField := r.shows(field, false); name != "tok" || !isField {
		t.Errorf("a text field: %q %v", name, isField)
	}
	field.States |= tree.Protected
	for _, print := range []bool{false, true} {
		if name, _ := r.shows(field, print); name != "" {
			t.Errorf("a password field shows %q (print %v)", name, print)
		}
	}
	doc := &tree.Node{Role: tree.RoleDocument, Name: "Hello " + shotSecret}
	link := &tree.Node{Role: "link", Name: "Go", URL: "http://x.example/?t=" + shotSecret}
	for _, n := range []*tree.Node{doc, link} {
		if name, _ := r.shows(n, false); name != "" {
			t.Errorf("%s shows %q in pixels", n.Role, name)
		}
		if name, _ := r.shows(n, true); name != "tok" {
			t.Errorf("%s shows %q in print, want tok", n.Role, name)
		}
	}
}
