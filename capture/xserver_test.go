//go:build linux

package capture

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
	"github.com/canopy-dev/canopy/internal/xvfbtest"
)

// skipReason is set when the X tests cannot run here (no Xvfb, outside CI).
var skipReason string

// Xvfb's screen for the tests: big enough that a full grab takes many strips.
const screenW, screenH = 1280, 1024

// TestMain runs the tests against a private Xvfb, so they never touch a
// real display. Xvfb picks a free display number itself and writes it to
// the -displayfd pipe once it accepts connections.
func TestMain(m *testing.M) { os.Exit(xvfbtest.Main(m, "capture", &skipReason)) }

// open opens a Screen on the test's Xvfb.
func open(t testing.TB) *Screen {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	s, err := Open(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// client is the test's own X client: it makes the windows that the tests
// take screenshots of.
type client struct {
	t      testing.TB
	conn   *xgb.Conn
	screen *xproto.ScreenInfo
	pix    pixelFormat
}

func newClient(t testing.TB) *client {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	conn, err := xconn.Dial(context.Background(), os.Getenv("DISPLAY"))
	if err != nil {
		t.Fatalf("test client: %v", err)
	}
	t.Cleanup(func() { xconn.Close(conn) })
	setup := xproto.Setup(conn)
	screen := setup.DefaultScreen(conn)
	pix, err := formatOf(setup, screen)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, conn: conn, screen: screen, pix: pix}
}

// window creates a top-level window at x,y filled with the colour rgb
// (0xRRGGBB), maps it and waits until the server has exposed (painted) it.
// Without a window manager it appears exactly there, above the others.
func (c *client) window(x, y, w, h int, rgb uint32) xproto.Window {
	c.t.Helper()
	id := c.create(x, y, w, h, rgb)
	xproto.MapWindow(c.conn, id)
	c.waitExpose(id)
	return id
}

// create creates an unmapped window, destroyed when the test ends.
func (c *client) create(x, y, w, h int, rgb uint32) xproto.Window {
	c.t.Helper()
	id, err := xproto.NewWindowId(c.conn)
	if err != nil {
		c.t.Fatal(err)
	}
	mask := uint32(xproto.CwBackPixel | xproto.CwOverrideRedirect | xproto.CwEventMask)
	values := []uint32{c.pixel(rgb), 1, xproto.EventMaskExposure}
	err = xproto.CreateWindowChecked(c.conn, c.screen.RootDepth, id, c.screen.Root,
		int16(x), int16(y), uint16(w), uint16(h), 0, xproto.WindowClassInputOutput, c.screen.RootVisual,
		mask, values).Check()
	if err != nil {
		c.t.Fatalf("create window: %v", err)
	}
	c.t.Cleanup(func() { c.destroy(id) })
	return id
}

// pixel is the server's pixel value for the colour rgb (0xRRGGBB).
func (c *client) pixel(rgb uint32) uint32 {
	var p uint32
	for i, ch := range []channel{c.pix.red, c.pix.green, c.pix.blue} {
		v := rgb >> (16 - 8*i) & 0xff
		p |= v * ch.max / 255 << ch.shift
	}
	return p
}

// waitExpose waits for the last Expose event of window id.
func (c *client) waitExpose(id xproto.Window) {
	c.t.Helper()
	done := make(chan error, 1)
	go func() {
		for {
			ev, err := c.conn.WaitForEvent()
			switch e := ev.(type) {
			case xproto.ExposeEvent:
				if e.Window == id && e.Count == 0 {
					done <- nil
					return
				}
			case nil:
				if err != nil {
					done <- err
				} else {
					done <- fmt.Errorf("the connection closed")
				}
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			c.t.Fatalf("wait for Expose: %v", err)
		}
	case <-time.After(10 * time.Second):
		c.t.Fatalf("window %#x was not exposed in 10s", id)
	}
}

// destroy destroys window id and waits until the server has done it.
func (c *client) destroy(id xproto.Window) {
	xproto.DestroyWindow(c.conn, id)
	if _, err := xproto.GetInputFocus(c.conn).Reply(); err != nil {
		c.t.Errorf("test client round trip: %v", err)
	}
}

// ctx is a context for one X call that should be quick.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}
