//go:build linux

package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"
)

// rgba is the colour 0xRRGGBB as Grab returns it.
func rgba(rgb uint32) color.RGBA {
	return color.RGBA{uint8(rgb >> 16), uint8(rgb >> 8), uint8(rgb), 0xff}
}

// checkFilled reports the pixels of r in img that are not c (up to a few).
func checkFilled(t *testing.T, img image.Image, r image.Rectangle, c color.RGBA) {
	t.Helper()
	bad := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if got := color.RGBAModel.Convert(img.At(x, y)); got != c {
				if bad++; bad <= 3 {
					t.Errorf("pixel %d,%d = %v, want %v", x, y, got, c)
				}
			}
		}
	}
	if bad > 3 {
		t.Errorf("... %d pixels in %v are not %v", bad, r, c)
	}
}

func TestOpenSize(t *testing.T) {
	s := open(t)
	if w, h := s.Size(); w != screenW || h != screenH {
		t.Errorf("Size() = %dx%d, want %dx%d", w, h, screenW, screenH)
	}
	if !s.pix.bgrx() {
		t.Errorf("Xvfb at depth 24 should be BGRX; got %+v", s.pix)
	}
}

func TestOpenNoDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	_, err := Open(t.Context(), "")
	if err == nil || !strings.Contains(err.Error(), "DISPLAY is not set") {
		t.Errorf("Open with no DISPLAY: %v", err)
	}
	_, err = Open(t.Context(), ":4321")
	if err == nil || !strings.Contains(err.Error(), "no X display at :4321") {
		t.Errorf("Open(:4321): %v", err)
	}
}

// TestGrabScreen grabs the whole 1280x1024 screen, which takes many strips,
// and checks a tall window crossing every strip boundary and a window in
// the bottom-right corner, in the last strip.
func TestGrabScreen(t *testing.T) {
	s := open(t)
	c := newClient(t)
	tall := image.Rect(600, 3, 640, screenH-3)
	c.window(tall.Min.X, tall.Min.Y, tall.Dx(), tall.Dy(), 0x12ab34)
	corner := image.Rect(screenW-30, screenH-20, screenW, screenH)
	c.window(corner.Min.X, corner.Min.Y, corner.Dx(), corner.Dy(), 0xfedcba)

	full := image.Rect(0, 0, screenW, screenH)
	if n := len(s.strips(full)); n < 10 {
		t.Fatalf("a full grab takes %d strips; the test wants many", n)
	}
	img, err := s.Grab(ctx(t), Rect{0, 0, screenW, screenH})
	if err != nil {
		t.Fatal(err)
	}
	if w, h := s.Size(); img.Bounds() != image.Rect(0, 0, w, h) {
		t.Errorf("bounds %v, want the %dx%d screen", img.Bounds(), w, h)
	}
	checkFilled(t, img, tall, rgba(0x12ab34))
	checkFilled(t, img, corner, rgba(0xfedcba))
}

// TestGrabWindow finds a window's rectangle and grabs exactly its pixels.
func TestGrabWindow(t *testing.T) {
	s := open(t)
	c := newClient(t)
	want := Rect{X: 50, Y: 60, W: 200, H: 120}
	id := c.window(want.X, want.Y, want.W, want.H, 0x3366cc)
	r, err := s.WindowRect(ctx(t), uint32(id))
	if err != nil {
		t.Fatal(err)
	}
	if r != want {
		t.Fatalf("WindowRect = %+v, want %+v", r, want)
	}
	img, err := s.GrabWindow(ctx(t), uint32(id))
	if err != nil {
		t.Fatal(err)
	}
	data, err := PNG(img)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := dec.Bounds().Size(); got != image.Pt(want.W, want.H) {
		t.Errorf("PNG is %v, want the window's %dx%d", got, want.W, want.H)
	}
	checkFilled(t, dec, dec.Bounds(), rgba(0x3366cc))
}

// TestGrabClipped grabs rectangles reaching past the screen's edges.
func TestGrabClipped(t *testing.T) {
	s := open(t)
	c := newClient(t)
	c.window(screenW-100, screenH-50, 100, 50, 0xaa5500)
	c.window(0, 0, 40, 40, 0x0055aa)
	for _, tc := range []struct {
		r    Rect
		want image.Rectangle
		rgb  uint32
	}{
		{Rect{screenW - 100, screenH - 50, 300, 300}, image.Rect(screenW-100, screenH-50, screenW, screenH), 0xaa5500},
		{Rect{-10, -20, 30, 40}, image.Rect(0, 0, 20, 20), 0x0055aa},
	} {
		img, err := s.Grab(ctx(t), tc.r)
		if err != nil {
			t.Errorf("Grab(%+v): %v", tc.r, err)
			continue
		}
		if img.Bounds() != tc.want {
			t.Errorf("Grab(%+v) bounds %v, want %v", tc.r, img.Bounds(), tc.want)
		}
		checkFilled(t, img, img.Bounds(), rgba(tc.rgb))
	}
}

func TestGrabOutside(t *testing.T) {
	s := open(t)
	for _, tc := range []struct {
		r    Rect
		want string
	}{
		{Rect{screenW, 0, 10, 10}, "outside the 1280x1024 screen"},
		{Rect{-50, -50, 50, 50}, "outside the 1280x1024 screen"},
		{Rect{10, 10, 0, 5}, "is empty"},
	} {
		_, err := s.Grab(ctx(t), tc.r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Grab(%+v): %v, want an error saying %q", tc.r, err, tc.want)
		}
	}
}

// TestWindowGone asks for windows that were destroyed or never existed.
func TestWindowGone(t *testing.T) {
	s := open(t)
	c := newClient(t)
	id := c.window(10, 10, 30, 30, 0x808080)
	c.destroy(id)
	for _, xid := range []uint32{uint32(id), 0x1} {
		_, err := s.WindowRect(ctx(t), xid)
		checkErr(t, err, ErrWindowGone, fmt.Sprintf("window %#x: the window is gone", xid))
		_, err = s.GrabWindow(ctx(t), xid)
		checkErr(t, err, ErrWindowGone, "the window is gone")
	}
}

func TestWindowHidden(t *testing.T) {
	s := open(t)
	c := newClient(t)
	id := c.create(10, 10, 30, 30, 0x808080)
	_, err := s.GrabWindow(ctx(t), uint32(id))
	checkErr(t, err, ErrWindowHidden, "not shown")
}

// checkErr checks that err wraps target and is one line containing text.
func checkErr(t *testing.T, err, target error, text string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("error %v, want one wrapping %v", err, target)
		return
	}
	if msg := err.Error(); !strings.Contains(msg, text) || strings.Contains(msg, "\n") {
		t.Errorf("error %q, want one line containing %q", msg, text)
	}
}

func TestGrabCancelledAndClosed(t *testing.T) {
	s := open(t)
	cctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Grab(cctx, Rect{0, 0, 10, 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("Grab with a cancelled context: %v", err)
	}
	if _, err := s.WindowRect(cctx, 0x1); !errors.Is(err, context.Canceled) {
		t.Errorf("WindowRect with a cancelled context: %v", err)
	}
	s.Close()
	s.Close()
	if _, err := s.Grab(ctx(t), Rect{0, 0, 10, 10}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Grab after Close: %v", err)
	}
}

// TestDrawOnGrab draws a mark at a window on a grab of it: the outline is
// at the window's edges in the image's screen coordinates.
func TestDrawOnGrab(t *testing.T) {
	s := open(t)
	c := newClient(t)
	id := c.window(300, 300, 120, 80, 0x202020)
	img, err := s.GrabWindow(ctx(t), uint32(id))
	if err != nil {
		t.Fatal(err)
	}
	Draw(img, []Mark{{Ref: "e1", Box: Rect{300, 300, 120, 80}}})
	for _, p := range []image.Point{{300, 300}, {419, 379}, {301, 340}} {
		if got := img.RGBAAt(p.X, p.Y); got != markColor {
			t.Errorf("pixel %v = %v, want the outline", p, got)
		}
	}
	checkFilled(t, img, image.Rect(310, 330, 410, 370), rgba(0x202020))
}

// BenchmarkGrabScreen grabs the full 1280x1024 screen and encodes it as
// PNG. A few coloured windows stand in for a desktop (Xvfb's root pattern
// alone compresses unrealistically well); real desktops with text and
// images take longer to encode.
func BenchmarkGrabScreen(b *testing.B) {
	s := open(b)
	c := newClient(b)
	for i := range 8 {
		c.window(i*150, i*110, 400, 300, uint32(0x1f3b5d*(i+1))&0xffffff)
	}
	full := Rect{0, 0, screenW, screenH}
	b.Run("grab", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Grab(context.Background(), full); err != nil {
				b.Fatal(err)
			}
		}
		reportMS(b)
	})
	b.Run("grab+png", func(b *testing.B) {
		size := 0
		for b.Loop() {
			img, err := s.Grab(context.Background(), full)
			if err != nil {
				b.Fatal(err)
			}
			data, err := PNG(img)
			if err != nil {
				b.Fatal(err)
			}
			size = len(data)
		}
		reportMS(b)
		b.ReportMetric(float64(size)/1024, "KiB")
	})
	// 300 marks, as a busy desktop app might have: Draw's cost, and labels'
	// text makes the PNG encode more like a real screen's.
	var marks []Mark
	for i := range 300 {
		marks = append(marks, Mark{Ref: fmt.Sprintf("e%d", i+1), Box: Rect{X: 20 + i%20*62, Y: 20 + i/20*66, W: 50, H: 30}})
	}
	b.Run("grab+marks+png", func(b *testing.B) {
		size := 0
		for b.Loop() {
			img, err := s.Grab(context.Background(), full)
			if err != nil {
				b.Fatal(err)
			}
			Draw(img, marks)
			data, err := PNG(img)
			if err != nil {
				b.Fatal(err)
			}
			size = len(data)
		}
		reportMS(b)
		b.ReportMetric(float64(size)/1024, "KiB")
	})
}

func reportMS(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed())/float64(time.Millisecond)/float64(b.N), "ms/op")
}
