//go:build linux

package xinput

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
)

// Window is a viewable top-level window: who owns it and where it is.
type Window struct {
	// ID is the root's child: the window itself, or the frame a window
	// manager put around it. Raise this one.
	ID uint32
	// Title is _NET_WM_NAME, else WM_NAME.
	Title string
	// PID is the owning process (_NET_WM_PID), 0 when the window does not
	// say. GTK sets it on popups and menus too, so it tells an
	// application's own windows from another's.
	PID int
	// Class is WM_CLASS: the instance and class names the program gave
	// its window ("xterm", "XTerm"), which every X toolkit sets, with or
	// without accessibility.
	Class []string
	// Override says the window is override-redirect: a menu, a tooltip or
	// a drop-down, which no window manager moves or focuses.
	Override bool
	// X, Y, W, H are the client window's box on the screen.
	X, Y, W, H int
	// Frame is the part of the box that the toolkit drew around its
	// content itself (_GTK_FRAME_EXTENTS: shadows, resize borders), zero
	// when the window does not say.
	Frame Extents
}

// Extents are the widths of a box's four margins.
type Extents struct{ Left, Right, Top, Bottom int }

// Contains says whether x,y is in the window's box.
func (w Window) Contains(x, y int) bool {
	return x >= w.X && y >= w.Y && x < w.X+w.W && y < w.Y+w.H
}

// Windows lists the viewable top-level windows, bottom to top. An
// accessibility tree cannot always tell a hidden window from a shown one
// (GTK 4.8 keeps a closed dialog "visible" and never says "showing"), nor
// where a window is (GTK 4.8 gives boxes relative to the window); the X
// server can.
//
// Under a window manager the root's children are its frames: a frame that
// has neither title nor owner is looked into for the client window.
func (d *Display) Windows(ctx context.Context) ([]Window, error) {
	if err := d.lock(); err != nil {
		return nil, err
	}
	defer d.mu.Unlock()
	return xconn.Await(ctx, d.windows)
}

// WindowAt returns the topmost viewable top-level window that holds x,y:
// the one a click there would reach.
func (d *Display) WindowAt(ctx context.Context, x, y int) (Window, error) {
	wins, err := d.Windows(ctx)
	if err != nil {
		return Window{}, err
	}
	for i := len(wins) - 1; i >= 0; i-- {
		if wins[i].Contains(x, y) {
			return d.withPID(ctx, wins[i]), nil
		}
	}
	return Window{}, fmt.Errorf("no window at %d,%d (only the root window is there)", x, y)
}

// Raise raises a top-level window (a Window's ID) above every other normal
// window and, unless it is override-redirect, gives it the input focus:
// what a window manager does on a click. Without one (plain Xvfb) this is
// how a window is brought forward before input goes to it by coordinates.
//
// Override-redirect windows (menus, tooltips, drop-downs) stay on top, as
// they do under a window manager: the window goes just above the topmost
// normal one, not above them.
func (d *Display) Raise(ctx context.Context, id uint32) error {
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	w := xproto.Window(id)
	type place struct {
		attrs   *xproto.GetWindowAttributesReply
		sibling xproto.Window // the topmost other normal window, or 0
	}
	p, err := xconn.Await(ctx, func() (place, error) {
		a, err := xproto.GetWindowAttributes(d.conn, w).Reply()
		if err != nil {
			return place{}, fmt.Errorf("window %#x is gone: %w", id, err)
		}
		tree, err := xproto.QueryTree(d.conn, d.root).Reply()
		if err != nil {
			return place{}, err
		}
		kids := make([]xproto.GetWindowAttributesCookie, len(tree.Children))
		for i, c := range tree.Children {
			kids[i] = xproto.GetWindowAttributes(d.conn, c)
		}
		out := place{attrs: a}
		for i, c := range tree.Children { // bottom to top; read every reply
			ka, err := kids[i].Reply()
			if err == nil && c != w && ka.MapState == xproto.MapStateViewable && !ka.OverrideRedirect {
				out.sibling = c
			}
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	if p.sibling != 0 {
		xproto.ConfigureWindow(d.conn, w, xproto.ConfigWindowSibling|xproto.ConfigWindowStackMode,
			[]uint32{uint32(p.sibling), xproto.StackModeAbove})
	}
	if !p.attrs.OverrideRedirect && p.attrs.MapState == xproto.MapStateViewable {
		xproto.SetInputFocus(d.conn, xproto.InputFocusParent, w, xproto.TimeCurrentTime)
	}
	return d.sync(ctx)
}

// windowProps are the replies that describe one window, requested
// together so a whole level of windows costs one round trip.
type windowProps struct {
	attrs              xproto.GetWindowAttributesCookie
	geom               xproto.GetGeometryCookie
	name, legacy, pid  xproto.GetPropertyCookie
	class              xproto.GetPropertyCookie
	frame              xproto.GetPropertyCookie
	win                xproto.Window
	viewable, override bool
	inputOutput        bool
}

// atoms are the property names windows() reads.
type atoms struct{ netName, pid, frame xproto.Atom }

func (d *Display) atoms() (atoms, error) {
	var a atoms
	var err error
	if a.netName, err = d.atom("_NET_WM_NAME"); err != nil {
		return a, err
	}
	if a.pid, err = d.atom("_NET_WM_PID"); err != nil {
		return a, err
	}
	a.frame, err = d.atom("_GTK_FRAME_EXTENTS")
	return a, err
}

// ask sends the requests that describe each window.
func (d *Display) ask(at atoms, wins []xproto.Window) []*windowProps {
	out := make([]*windowProps, len(wins))
	for i, w := range wins {
		out[i] = &windowProps{
			win:    w,
			attrs:  xproto.GetWindowAttributes(d.conn, w),
			geom:   xproto.GetGeometry(d.conn, xproto.Drawable(w)),
			name:   xproto.GetProperty(d.conn, false, w, at.netName, xproto.GetPropertyTypeAny, 0, 1024),
			legacy: xproto.GetProperty(d.conn, false, w, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, 1024),
			pid:    xproto.GetProperty(d.conn, false, w, at.pid, xproto.AtomCardinal, 0, 1),
			frame:  xproto.GetProperty(d.conn, false, w, at.frame, xproto.AtomCardinal, 0, 4),
			class:  xproto.GetProperty(d.conn, false, w, xproto.AtomWmClass, xproto.AtomString, 0, 256),
		}
	}
	return out
}

// read reads the replies of ask, in order; ok is false when the window
// went away meanwhile.
func (p *windowProps) read() (Window, bool) {
	a, aerr := p.attrs.Reply()
	g, gerr := p.geom.Reply()
	nm, _ := p.name.Reply()
	lg, _ := p.legacy.Reply()
	pid, _ := p.pid.Reply()
	fr, _ := p.frame.Reply()
	cl, _ := p.class.Reply()
	if aerr != nil || gerr != nil {
		return Window{}, false
	}
	p.viewable = a.MapState == xproto.MapStateViewable
	p.override = a.OverrideRedirect
	p.inputOutput = a.Class == xproto.WindowClassInputOutput
	bw := int(g.BorderWidth)
	w := Window{ID: uint32(p.win), Override: a.OverrideRedirect,
		X: int(g.X) + bw, Y: int(g.Y) + bw, W: int(g.Width), H: int(g.Height)}
	if nm != nil && len(nm.Value) > 0 {
		w.Title = string(nm.Value)
	} else if lg != nil {
		w.Title = string(lg.Value)
	}
	if pid != nil && pid.Format == 32 && len(pid.Value) >= 4 {
		w.PID = int(binary.LittleEndian.Uint32(pid.Value))
	}
	if cl != nil && cl.Format == 8 {
		for _, c := range strings.Split(string(cl.Value), "\x00") {
			if c != "" {
				w.Class = append(w.Class, c)
			}
		}
	}
	if fr != nil && fr.Format == 32 && len(fr.Value) >= 16 {
		v := func(i int) int { return int(int32(binary.LittleEndian.Uint32(fr.Value[4*i:]))) }
		w.Frame = Extents{Left: v(0), Right: v(1), Top: v(2), Bottom: v(3)}
	}
	return w, true
}

func (d *Display) windows() ([]Window, error) {
	tree, err := xproto.QueryTree(d.conn, d.root).Reply()
	if err != nil {
		return nil, err
	}
	at, err := d.atoms()
	if err != nil {
		return nil, err
	}
	var out []Window
	for _, p := range d.ask(at, tree.Children) { // read every reply, in order
		w, ok := p.read()
		if !ok || !p.viewable || !p.inputOutput {
			continue
		}
		if w.Title == "" && w.PID == 0 && len(w.Class) == 0 && !w.Override {
			if c, ok := d.client(at, p.win, w); ok {
				w = c
			}
		}
		out = append(out, w)
	}
	return out, nil
}

// client finds the client window in a window manager's frame: the first
// viewable child that has a title or an owner, with its box on the screen.
// The ID stays the frame's.
func (d *Display) client(at atoms, frame xproto.Window, f Window) (Window, bool) {
	tree, err := xproto.QueryTree(d.conn, frame).Reply()
	if err != nil {
		return Window{}, false
	}
	found := false
	var out Window
	for _, p := range d.ask(at, tree.Children) {
		c, ok := p.read()
		if found || !ok || !p.viewable || c.Title == "" && c.PID == 0 && len(c.Class) == 0 {
			continue
		}
		c.ID = f.ID
		c.X += f.X
		c.Y += f.Y
		out, found = c, true
	}
	return out, found
}

// atom interns name.
func (d *Display) atom(name string) (xproto.Atom, error) {
	r, err := xproto.InternAtom(d.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, err
	}
	return r.Atom, nil
}

// Focused returns the top-level window that holds the keyboard focus: the
// one keys typed now go to (under the default PointerRoot focus, the one
// under the pointer). ok is false when no window has it.
func (d *Display) Focused(ctx context.Context) (w Window, ok bool, err error) {
	if err := d.lock(); err != nil {
		return Window{}, false, err
	}
	top, err := xconn.Await(ctx, d.focusedTop)
	var wins []Window
	if err == nil && top != xproto.WindowNone {
		wins, err = xconn.Await(ctx, d.windows)
	}
	d.mu.Unlock()
	if err != nil || top == xproto.WindowNone {
		return Window{}, false, err
	}
	for _, w := range wins {
		if w.ID == uint32(top) {
			return d.withPID(ctx, w), true, nil
		}
	}
	return Window{}, false, nil
}

// withPID fills in w.PID, when the window does not say, from the X server's
// record of the client that made it (X-Resource): a program that sets no
// _NET_WM_PID (Xlib, Xt and Motif programs) is still known by its process.
func (d *Display) withPID(ctx context.Context, w Window) Window {
	if w.PID != 0 || !d.res {
		return w
	}
	if err := d.lock(); err != nil {
		return w
	}
	defer d.mu.Unlock()
	pid, err := xconn.Await(ctx, func() (int, error) {
		r, err := res.QueryClientIds(d.conn, 1, []res.ClientIdSpec{{Client: w.ID, Mask: res.ClientIdMaskLocalClientPID}}).Reply()
		if err != nil {
			return 0, err
		}
		for _, id := range r.Ids {
			if id.Spec.Mask&res.ClientIdMaskLocalClientPID != 0 && len(id.Value) > 0 {
				return int(id.Value[0]), nil
			}
		}
		return 0, nil
	})
	if err == nil {
		w.PID = pid
	}
	return w
}

// focusedTop is the root's child that holds the focus, or None.
func (d *Display) focusedTop() (xproto.Window, error) {
	f, err := xproto.GetInputFocus(d.conn).Reply()
	if err != nil {
		return 0, err
	}
	w := f.Focus
	if w == xproto.InputFocusPointerRoot || w == d.root {
		p, err := xproto.QueryPointer(d.conn, d.root).Reply()
		if err != nil {
			return 0, err
		}
		return p.Child, nil
	}
	for w != xproto.WindowNone {
		t, err := xproto.QueryTree(d.conn, w).Reply()
		if err != nil {
			return 0, err
		}
		if t.Parent == d.root || t.Parent == xproto.WindowNone {
			return w, nil
		}
		w = t.Parent
	}
	return xproto.WindowNone, nil
}
