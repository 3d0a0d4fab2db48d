//go:build linux

package capture

import (
	"context"
	"errors"
	"fmt"
	"image"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
)

// inFlight is how many strip requests Grab keeps sent ahead of the reply it
// converts: the server encodes the next strips while the client converts
// one, and at most this many replies wait in memory.
const inFlight = 4

// Grab returns the pixels of r on the screen. r is clipped to the screen;
// an empty r, or one wholly outside the screen, is an error saying so.
//
// The image's Bounds() are the clipped rectangle in screen coordinates, so
// marks in screen coordinates can be drawn on it as they are (see Draw). A
// grab of a window's rect therefore starts at the window's position, not at
// 0,0; png.Encode and PNG do not care, but code indexing img.Pix does.
//
// Pixels come from the root window (GetImage, ZPixmap), so the image shows
// whatever is on top there, and every pixel is opaque. The area is read in
// horizontal strips of at most the server's maximum request length each
// (256 KiB on Xvfb and Xorg: a 1280x1024 screen takes 21): no single reply
// needs a big buffer, the server fills the next strips while this one is
// converted, and a ctx that ends stops the grab between strips.
func (s *Screen) Grab(ctx context.Context, r Rect) (*image.RGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	conn, err := s.connection()
	if err != nil {
		return nil, err
	}
	area, err := s.clip(r)
	if err != nil {
		return nil, err
	}
	img := image.NewRGBA(area)
	stop := make(chan struct{})
	defer close(stop)
	_, err = xconn.Await(ctx, func() (struct{}, error) { return struct{}{}, s.fetch(conn, img, stop) })
	if err != nil {
		return nil, fmt.Errorf("screenshot of %dx%d at %d,%d: %w", area.Dx(), area.Dy(), area.Min.X, area.Min.Y, s.serverError(err))
	}
	return img, nil
}

// GrabWindow grabs the on-screen rectangle of the window with X id xid (see
// WindowRect and Grab): what is visible there, borders and decorations of
// a window manager's frame excluded. A window that is gone or not shown is
// an error wrapping ErrWindowGone or ErrWindowHidden.
func (s *Screen) GrabWindow(ctx context.Context, xid uint32) (*image.RGBA, error) {
	r, err := s.WindowRect(ctx, xid)
	if err != nil {
		return nil, err
	}
	img, err := s.Grab(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("window %#x: %w", xid, err)
	}
	return img, nil
}

// clip intersects r with the screen.
func (s *Screen) clip(r Rect) (image.Rectangle, error) {
	if r.W <= 0 || r.H <= 0 {
		return image.Rectangle{}, fmt.Errorf("screenshot: the rectangle %dx%d at %d,%d is empty", r.W, r.H, r.X, r.Y)
	}
	area := r.Image().Intersect(image.Rect(0, 0, s.width, s.height))
	if area.Empty() {
		return image.Rectangle{}, fmt.Errorf("screenshot: the rectangle %dx%d at %d,%d is outside the %dx%d screen",
			r.W, r.H, r.X, r.Y, s.width, s.height)
	}
	return area, nil
}

// strips splits area into horizontal bands of at most stripBytes of pixel
// data each, one row at least.
func (s *Screen) strips(area image.Rectangle) []image.Rectangle {
	rows := max(1, s.stripBytes/s.pix.stride(area.Dx()))
	var out []image.Rectangle
	for y := area.Min.Y; y < area.Max.Y; y += rows {
		out = append(out, image.Rect(area.Min.X, y, area.Max.X, min(y+rows, area.Max.Y)))
	}
	return out
}

// errStopped ends a fetch whose caller has given up.
var errStopped = errors.New("screenshot: stopped")

// fetch reads img's area from the root window strip by strip, keeping
// inFlight requests sent ahead, until done or stop is closed.
func (s *Screen) fetch(conn *xgb.Conn, img *image.RGBA, stop <-chan struct{}) error {
	strips := s.strips(img.Bounds())
	cookies := make([]xproto.GetImageCookie, len(strips))
	send := func(i int) {
		r := strips[i]
		cookies[i] = xproto.GetImage(conn, xproto.ImageFormatZPixmap, xproto.Drawable(s.root),
			int16(r.Min.X), int16(r.Min.Y), uint16(r.Dx()), uint16(r.Dy()), ^uint32(0))
	}
	for i := range min(inFlight, len(strips)) {
		send(i)
	}
	for i, r := range strips {
		select {
		case <-stop:
			return errStopped
		default:
		}
		reply, err := cookies[i].Reply()
		if err != nil {
			return err
		}
		if next := i + inFlight; next < len(strips) {
			send(next)
		}
		if err := s.pix.convert(img, r, reply.Data); err != nil {
			return err
		}
	}
	return nil
}
