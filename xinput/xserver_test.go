//go:build linux

package xinput

import (
	"context"
	"os"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
	"github.com/canopy-dev/canopy/internal/xvfbtest"
)

// skipReason is set when the tests cannot run here (no Xvfb, outside CI).
var skipReason string

// TestMain runs the tests against a private Xvfb, so they never touch a
// real display. Xvfb picks a free display number itself and writes it to
// the -displayfd pipe once it accepts connections.
func TestMain(m *testing.M) { os.Exit(xvfbtest.Main(m, "xinput", &skipReason)) }

// client is the test's own X client: it owns windows and reads the events
// the Display's fake input produces in them.
type client struct {
	t      *testing.T
	conn   *xgb.Conn
	screen *xproto.ScreenInfo
}

func newClient(t *testing.T) *client {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	conn, err := xconn.Dial(context.Background(), os.Getenv("DISPLAY"))
	if err != nil {
		t.Fatalf("test client: %v", err)
	}
	t.Cleanup(func() { xconn.Close(conn) })
	return &client{t: t, conn: conn, screen: xproto.Setup(conn).DefaultScreen(conn)}
}

// open opens a Display for the test.
func open(t *testing.T) *Display {
	t.Helper()
	d, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// window creates and maps a window at x,y that listens to key, button and
// motion events. Without a window manager it appears exactly there.
func (c *client) window(x, y, w, h int) xproto.Window {
	c.t.Helper()
	mask := uint32(xproto.EventMaskKeyPress | xproto.EventMaskKeyRelease | xproto.EventMaskButtonPress |
		xproto.EventMaskButtonRelease | xproto.EventMaskPointerMotion)
	return c.create(x, y, w, h, xproto.CwBackPixel|xproto.CwEventMask, []uint32{c.screen.WhitePixel, mask})
}

// overrideWindow maps an override-redirect window (a menu, a tooltip).
func (c *client) overrideWindow(x, y, w, h int) xproto.Window {
	c.t.Helper()
	return c.create(x, y, w, h, xproto.CwBackPixel|xproto.CwOverrideRedirect, []uint32{c.screen.BlackPixel, 1})
}

// create creates and maps a top-level window, destroyed when the test ends.
func (c *client) create(x, y, w, h int, mask uint32, values []uint32) xproto.Window {
	c.t.Helper()
	id, err := xproto.NewWindowId(c.conn)
	if err != nil {
		c.t.Fatal(err)
	}
	err = xproto.CreateWindowChecked(c.conn, c.screen.RootDepth, id, c.screen.Root,
		int16(x), int16(y), uint16(w), uint16(h), 0, xproto.WindowClassInputOutput, c.screen.RootVisual,
		mask, values).Check()
	if err != nil {
		c.t.Fatalf("create window: %v", err)
	}
	xproto.MapWindow(c.conn, id)
	c.sync()
	c.t.Cleanup(func() {
		xproto.DestroyWindow(c.conn, id)
		c.sync()
	})
	return id
}

func (c *client) focus(w xproto.Window) {
	xproto.SetInputFocus(c.conn, xproto.InputFocusParent, w, xproto.TimeCurrentTime)
	c.sync()
}

func (c *client) sync() {
	if _, err := xproto.GetInputFocus(c.conn).Reply(); err != nil {
		c.t.Fatalf("test client round trip: %v", err)
	}
}

// events returns the events received so far. The Display's call has
// returned, so the server has queued them for us; our own round trip
// brings them in, since they come before its reply.
func (c *client) events() []xgb.Event {
	c.t.Helper()
	c.sync()
	var evs []xgb.Event
	for {
		ev, err := c.conn.PollForEvent()
		if err != nil {
			c.t.Fatalf("X error in the test client: %v", err)
		}
		if ev == nil {
			return evs
		}
		evs = append(evs, ev)
	}
}

// keyPress is a decoded KeyPress: its keysym and modifier state.
type keyPress struct {
	sym   xproto.Keysym
	state uint16
}

// keyPresses decodes the KeyPress events with the server's current map, as
// a client would: the shifted column when Shift is down (falling back to
// the unshifted one). It also checks that every key went up again.
func (c *client) keyPresses(evs []xgb.Event) []keyPress {
	c.t.Helper()
	min, per, syms := c.keymap()
	var out []keyPress
	down := map[xproto.Keycode]int{}
	for _, ev := range evs {
		switch e := ev.(type) {
		case xproto.KeyPressEvent:
			down[e.Detail]++
			row := syms[int(e.Detail-min)*per:]
			sym := row[0]
			if e.State&xproto.ModMaskShift != 0 && row[1] != 0 {
				sym = row[1]
			}
			out = append(out, keyPress{sym, e.State})
		case xproto.KeyReleaseEvent:
			down[e.Detail]--
		}
	}
	for code, n := range down {
		if n != 0 {
			c.t.Errorf("keycode %d: %d more presses than releases", code, n)
		}
	}
	return out
}

// keymap reads the server's keyboard map.
func (c *client) keymap() (min xproto.Keycode, per int, syms []xproto.Keysym) {
	c.t.Helper()
	setup := xproto.Setup(c.conn)
	n := byte(int(setup.MaxKeycode) - int(setup.MinKeycode) + 1)
	km, err := xproto.GetKeyboardMapping(c.conn, setup.MinKeycode, n).Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	return setup.MinKeycode, int(km.KeysymsPerKeycode), km.Keysyms
}

// keycodeOf returns the keycode with sym in its first column, or 0.
func (c *client) keycodeOf(sym xproto.Keysym) xproto.Keycode {
	min, per, syms := c.keymap()
	for i := 0; i < len(syms); i += per {
		if syms[i] == sym {
			return min + xproto.Keycode(i/per)
		}
	}
	return 0
}

// bound reads the keycodes listed in the root property boundProp.
func (c *client) bound() []xproto.Keycode {
	c.t.Helper()
	a, err := xproto.InternAtom(c.conn, false, uint16(len(boundProp)), boundProp).Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	p, err := xproto.GetProperty(c.conn, false, c.screen.Root, a.Atom, xproto.AtomCardinal, 0, 64).Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	var out []xproto.Keycode
	for _, b := range p.Value {
		out = append(out, xproto.Keycode(b))
	}
	return out
}
