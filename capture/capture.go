//go:build linux

// Package capture takes screenshots of an X11 screen, of one window or of
// any rectangle of it, and draws ref marks (a box and a label such as "e12")
// on them, so an agent can match what it sees to the accessibility tree.
//
// Pixels are read from the root window with GetImage, so a screenshot shows
// what is on the screen: a window covered by another shows the one on top,
// and a window off the screen's edge is cut there. There is no compositing
// extension involved and no fixed sleeps.
//
// A Screen is safe for concurrent use.
package capture

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
)

// Rect is a rectangle in screen pixels: X, Y its top-left corner, W, H its
// size. It is the shape the accessibility trees give bounds in.
type Rect struct{ X, Y, W, H int }

// Image converts r to an image.Rectangle, the form Grab's images use.
func (r Rect) Image() image.Rectangle { return image.Rect(r.X, r.Y, r.X+r.W, r.Y+r.H) }

// Screen is a connection to an X server's default screen, for screenshots.
type Screen struct {
	mu     sync.Mutex
	conn   *xgb.Conn // nil once closed
	name   string
	root   xproto.Window
	width  int
	height int
	pix    pixelFormat
	// stripBytes caps the pixel data one GetImage asks for (see Grab).
	stripBytes int
}

// openTimeout bounds the connection setup when ctx has no earlier deadline,
// so that a socket nobody answers on gives an error instead of a hang.
const openTimeout = 10 * time.Second

// Open connects to the X display named display (":99", "unix:1.0"); ""
// means $DISPLAY. It fails, with an error saying what to do, when there is
// no display, it does not answer within ctx (10 s at most), or its screen
// uses pixels Grab cannot read (only TrueColor at 16, 24 or 32 bits per
// pixel is read; every current X server and Xvfb default to it).
//
// xgb reads ~/.Xauthority; when the file is missing it logs "Could not get
// authority info" and connects without a cookie, which Xvfb accepts. Open
// drops those log lines from xgb's logger, as xinput.Open does.
func Open(ctx context.Context, display string) (*Screen, error) {
	name := display
	if name == "" {
		name = os.Getenv("DISPLAY")
	}
	if name == "" {
		return nil, errors.New("no X display: DISPLAY is not set (start one with `canopy desktop up`)")
	}
	conn, err := connect(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("no X display at %s: %w (start one with `canopy desktop up`)", name, err)
	}
	setup := xproto.Setup(conn)
	screen := setup.DefaultScreen(conn)
	pix, err := formatOf(setup, screen)
	if err != nil {
		xconn.Close(conn)
		return nil, fmt.Errorf("the X display %s: %w", name, err)
	}
	return &Screen{
		conn:       conn,
		name:       name,
		root:       screen.Root,
		width:      int(screen.WidthInPixels),
		height:     int(screen.HeightInPixels),
		pix:        pix,
		stripBytes: 4 * int(setup.MaximumRequestLength),
	}, nil
}

// connect opens the xgb connection, giving up when ctx ends or
// openTimeout passes.
func connect(ctx context.Context, name string) (*xgb.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	return xconn.Dial(ctx, name)
}

// Close closes the connection. Calls still waiting on the server return an
// error; calls made afterwards too. Closing twice is harmless. The error is
// always nil; Close has one so that a Screen is an io.Closer.
func (s *Screen) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		xconn.Close(s.conn)
		s.conn = nil
	}
	return nil
}

// Size returns the screen's size in pixels. It is the size when Open
// connected: a screen resized later (RandR) is not followed.
func (s *Screen) Size() (w, h int) { return s.width, s.height }

// connection returns the open connection, or an error once closed.
func (s *Screen) connection() (*xgb.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil, errors.New("screenshot: the X connection is closed")
	}
	return s.conn, nil
}

// serverError words an error from waiting on the X server for a user.
func (s *Screen) serverError(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("the X display %s closed the connection: %w", s.name, err)
	}
	return err
}
