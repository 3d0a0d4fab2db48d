//go:build linux

// Package xinput sends keyboard and pointer input to an X display through
// the XTEST extension, the way xdotool does. The desktop uses it for what
// AT-SPI cannot do: Chromium's web content has no AT-SPI actions, so a web
// input on the desktop is clicked and typed into with fake X events.
//
// XTEST events are indistinguishable from real ones to applications: they
// go through the server's normal input path, move the real pointer and
// change the real keyboard state, and reach whichever window the server
// would deliver a real event to. A few consequences worth knowing:
//
//   - Keys go to the window that has the input focus, not to the window
//     under the pointer. Without a window manager (plain Xvfb) nothing sets
//     the focus when a window is clicked or mapped; the client (or
//     RaiseAndFocusAt) must call SetInputFocus itself.
//   - Without a window manager every top-level window sits where it asked to
//     be, usually at 0,0, so windows pile up and the last one mapped is on
//     top. A click at a point hits the topmost window there: raise the one
//     you mean first (RaiseAndFocusAt).
//   - X has no click count. Press and release a button twice quickly and the
//     toolkit counts a double click (GTK and Chromium use ~400 ms).
//   - The keyboard speaks keycodes, not characters. Type looks each
//     character's keysym up in the server's keyboard map and holds Shift
//     when the keysym is on the shifted column; a character the map lacks
//     ('é' on a US map) is typed by binding its keysym to a spare keycode,
//     which stays bound after the call (see Type for why).
//
// Every call ends with a round trip to the server, so when it returns the
// server has processed the events and handed them to the receiving clients
// (whether the client has read them yet is up to the client). There are no
// fixed sleeps.
//
// A Display is safe for concurrent use; its calls are serialised.
package xinput

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/canopy-dev/canopy/internal/xconn"
)

// Display is a connection to an X server with the XTEST extension.
type Display struct {
	mu     sync.Mutex
	conn   *xgb.Conn
	name   string
	root   xproto.Window
	width  int // screen size in pixels
	height int
	minKey xproto.Keycode
	maxKey xproto.Keycode
	// boundAtom names the root property listing the bound keycodes; 0
	// until first needed.
	boundAtom xproto.Atom
	// res says the server has X-Resource, which names the process of any
	// window's client, whether or not the window says (windowPID).
	res bool
}

// openTimeout bounds the connection setup, so that a socket nobody answers
// on gives an error instead of a hang. Tests shorten it.
var openTimeout = 10 * time.Second

// Open connects to the X display named display (":99", "unix:1.0"); ""
// means $DISPLAY. It fails with an error saying what to do when there is no
// display or the server lacks XTEST.
//
// xgb reads ~/.Xauthority; when the file is missing it logs "Could not get
// authority info" and connects without a cookie, which Xvfb accepts. Open
// drops those two log lines from xgb's logger and keeps its other messages.
func Open(display string) (*Display, error) {
	name := display
	if name == "" {
		name = os.Getenv("DISPLAY")
	}
	if name == "" {
		return nil, errors.New("no X display: DISPLAY is not set (start one with `canopy desktop up`)")
	}
	conn, err := connect(name)
	if err != nil {
		return nil, fmt.Errorf("no X display at %s: %v (start one with `canopy desktop up`)", name, err)
	}
	if err := xtest.Init(conn); err != nil {
		xconn.Close(conn)
		return nil, fmt.Errorf("the X display %s has no XTEST extension, which fake input needs (%v): start the server without -disable-xtest", name, err)
	}
	setup := xproto.Setup(conn)
	screen := setup.DefaultScreen(conn)
	return &Display{
		res:    res.Init(conn) == nil,
		conn:   conn,
		name:   name,
		root:   screen.Root,
		width:  int(screen.WidthInPixels),
		height: int(screen.HeightInPixels),
		minKey: setup.MinKeycode,
		maxKey: setup.MaxKeycode,
	}, nil
}

// connect opens the xgb connection within openTimeout.
func connect(name string) (*xgb.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	return xconn.Dial(ctx, name)
}

// Close closes the connection. Keycodes that Type bound for characters the
// keyboard map lacked stay bound (see Type): the applications may not have
// decoded the last keys yet.
func (d *Display) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn != nil {
		xconn.Close(d.conn)
		d.conn = nil
	}
}

// Size returns the screen's size in pixels.
func (d *Display) Size() (width, height int) { return d.width, d.height }

// checkPoint reports a point outside the screen; XTEST would silently clamp
// it to the edge.
func (d *Display) checkPoint(x, y int) error {
	if x < 0 || y < 0 || x >= d.width || y >= d.height {
		return fmt.Errorf("point %d,%d is outside the %d×%d screen", x, y, d.width, d.height)
	}
	return nil
}

// lock takes the Display for one call and fails if it is closed.
func (d *Display) lock() error {
	d.mu.Lock()
	if d.conn == nil {
		d.mu.Unlock()
		return errors.New("xinput: display is closed")
	}
	return nil
}

// sync makes a round trip to the server, so that every request sent before
// it has been processed, then reports the first X error those requests
// caused. Fake input is sent unchecked (one round trip per call, not per
// event); its errors, like the MappingNotify events every client receives,
// wait in xgb's event queue, which sync drains so that it never fills.
func (d *Display) sync(ctx context.Context) error {
	_, err := xconn.Await(ctx, func() (*xproto.GetInputFocusReply, error) {
		return xproto.GetInputFocus(d.conn).Reply()
	})
	if err != nil {
		if err == io.EOF {
			return fmt.Errorf("the X display %s closed the connection", d.name)
		}
		return err
	}
	var first error
	for {
		ev, xerr := d.conn.PollForEvent()
		if ev == nil && xerr == nil {
			return first
		}
		if xerr != nil && first == nil {
			first = fmt.Errorf("the X server refused the request: %v", xerr)
		}
	}
}
