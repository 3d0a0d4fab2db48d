//go:build linux

package xinput

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/canopy-dev/canopy/internal/xconn"
)

// Button is a mouse button, numbered as X numbers them.
type Button byte

// The mouse buttons. X reports the wheel as buttons 4 to 7; use Scroll for
// it.
const (
	Left   Button = 1
	Middle Button = 2
	Right  Button = 3
)

// sender sends fake events and remembers which keys and buttons are down,
// so that an error or a cancelled context half way through a chord never
// leaves a key or button held.
type sender struct {
	d       *Display
	keys    []xproto.Keycode
	buttons []byte
}

func (s *sender) fake(typ, detail byte, x, y int) {
	xtest.FakeInput(s.d.conn, typ, detail, 0, s.d.root, int16(x), int16(y), 0)
}

func (s *sender) key(code xproto.Keycode, down bool) {
	if down {
		s.fake(xproto.KeyPress, byte(code), 0, 0)
		s.keys = append(s.keys, code)
		return
	}
	s.fake(xproto.KeyRelease, byte(code), 0, 0)
	if i := slices.Index(s.keys, code); i >= 0 {
		s.keys = slices.Delete(s.keys, i, i+1)
	}
}

func (s *sender) button(b byte, down bool) {
	if down {
		s.fake(xproto.ButtonPress, b, 0, 0)
		s.buttons = append(s.buttons, b)
		return
	}
	s.fake(xproto.ButtonRelease, b, 0, 0)
	if i := slices.Index(s.buttons, b); i >= 0 {
		s.buttons = slices.Delete(s.buttons, i, i+1)
	}
}

// move sends an absolute pointer motion (detail 0) to x,y on the root.
func (s *sender) move(x, y int) {
	s.fake(xproto.MotionNotify, 0, x, y)
}

// send runs f, releases whatever f left held down, and makes a round trip
// so that the server has processed every event when send returns. The
// caller holds d.mu.
func (d *Display) send(ctx context.Context, f func(*sender) error) error {
	s := &sender{d: d}
	err := f(s)
	for _, code := range slices.Backward(s.keys) {
		s.fake(xproto.KeyRelease, byte(code), 0, 0)
	}
	for _, b := range slices.Backward(s.buttons) {
		s.fake(xproto.ButtonRelease, b, 0, 0)
	}
	if err != nil {
		// Let the releases land before reporting the error, even when the
		// error is that ctx ended.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = d.sync(sctx)
		return err
	}
	return d.sync(ctx)
}

// Move moves the pointer to x,y (root coordinates, which are screen
// coordinates). Windows under the path see Enter/Leave and Motion events,
// so hover effects follow.
func (d *Display) Move(ctx context.Context, x, y int) error {
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if err := d.checkPoint(x, y); err != nil {
		return err
	}
	return d.send(ctx, func(s *sender) error {
		s.move(x, y)
		return nil
	})
}

// Click moves the pointer to x,y and presses and releases button count
// times (count < 1 is one click). The click goes to the topmost window at
// the point, which without a window manager may not be the one you expect:
// see RaiseAndFocusAt. Clicking does not move the keyboard focus unless the
// application does it (toolkits do for their own widgets; without a window
// manager nobody does it for top-level windows).
func (d *Display) Click(ctx context.Context, x, y int, button Button, count int) error {
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if button < Left || button > Right {
		return fmt.Errorf("unknown mouse button %d: use Left, Middle or Right", button)
	}
	if err := d.checkPoint(x, y); err != nil {
		return err
	}
	return d.send(ctx, func(s *sender) error {
		s.move(x, y)
		for range max(count, 1) {
			if err := ctx.Err(); err != nil {
				return err
			}
			s.button(byte(button), true)
			s.button(byte(button), false)
		}
		return nil
	})
}

// Scroll moves the pointer to x,y and turns the wheel: dy notches down
// (negative: up) and dx notches right (negative: left). X has no wheel
// event: a notch is a click of button 4 (up), 5 (down), 6 (left) or 7
// (right). How far a notch scrolls is up to the application (Chromium:
// about 53 px; GTK: a fraction of the page).
func (d *Display) Scroll(ctx context.Context, x, y, dx, dy int) error {
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if err := d.checkPoint(x, y); err != nil {
		return err
	}
	notches := func(n int, neg, pos byte) (byte, int) {
		if n < 0 {
			return neg, -n
		}
		return pos, n
	}
	vb, vn := notches(dy, 4, 5)
	hb, hn := notches(dx, 6, 7)
	return d.send(ctx, func(s *sender) error {
		s.move(x, y)
		for _, w := range [2]struct {
			b byte
			n int
		}{{vb, vn}, {hb, hn}} {
			for range w.n {
				if err := ctx.Err(); err != nil {
					return err
				}
				s.button(w.b, true)
				s.button(w.b, false)
			}
		}
		return nil
	})
}

// RaiseAndFocusAt raises the top-level window at x,y to the top of the
// stack and gives it the input focus, which is what a window manager would
// do on a click. Without one (plain Xvfb) this is how a window is brought
// forward before clicking or typing into it by coordinates.
//
// The window is the topmost mapped child of the root that contains the
// point (under a window manager that is the manager's frame, which is the
// right thing to raise). When that window is override-redirect (a menu, a
// tooltip, a drop-down) it is left alone: it is already on top and does not
// take the focus.
func (d *Display) RaiseAndFocusAt(ctx context.Context, x, y int) error {
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if err := d.checkPoint(x, y); err != nil {
		return err
	}
	type hit struct {
		win      xproto.Window
		override bool
	}
	h, err := xconn.Await(ctx, func() (hit, error) {
		w, override, err := d.topLevelAt(x, y)
		return hit{w, override}, err
	})
	if err != nil {
		return err
	}
	if h.override {
		return nil
	}
	xproto.ConfigureWindow(d.conn, h.win, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove})
	xproto.SetInputFocus(d.conn, xproto.InputFocusParent, h.win, xproto.TimeCurrentTime)
	return d.sync(ctx)
}

// topLevelAt returns the topmost viewable InputOutput child of the root
// that contains x,y. The requests for all children go out before the first
// reply is read, so this is about one round trip, not one per window.
func (d *Display) topLevelAt(x, y int) (xproto.Window, bool, error) {
	tree, err := xproto.QueryTree(d.conn, d.root).Reply()
	if err != nil {
		return 0, false, err
	}
	n := len(tree.Children)
	attrs := make([]xproto.GetWindowAttributesCookie, n)
	geoms := make([]xproto.GetGeometryCookie, n)
	for i, w := range tree.Children {
		attrs[i] = xproto.GetWindowAttributes(d.conn, w)
		geoms[i] = xproto.GetGeometry(d.conn, xproto.Drawable(w))
	}
	found := -1
	override := false
	for i := range n { // children come bottom to top; read every reply
		a, aerr := attrs[i].Reply()
		g, gerr := geoms[i].Reply()
		if aerr != nil || gerr != nil {
			continue // the window went away meanwhile
		}
		if a.MapState != xproto.MapStateViewable || a.Class != xproto.WindowClassInputOutput {
			continue
		}
		bw := 2 * int(g.BorderWidth)
		if x >= int(g.X) && y >= int(g.Y) && x < int(g.X)+int(g.Width)+bw && y < int(g.Y)+int(g.Height)+bw {
			found, override = i, a.OverrideRedirect
		}
	}
	if found < 0 {
		return 0, false, fmt.Errorf("no window at %d,%d to raise (only the root window is there)", x, y)
	}
	return tree.Children[found], override, nil
}
