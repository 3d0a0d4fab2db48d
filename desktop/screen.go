//go:build linux

package desktop

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/xinput"
)

// This file places objects on the screen: the X windows behind an
// application's windows, the origin GTK 4 leaves out of its boxes, and the
// check that a pointer action at a point reaches the object's application.

// appInfo is what is learned once about an application: its process, which
// owns its X windows, and whether its boxes are relative to their window.
type appInfo struct {
	pid int
	// relative: GTK 4 answers GetExtents relative to the window, whatever
	// coordinate type is asked for, so the window's place on the screen
	// must be added.
	relative bool
}

// appInfos caches appInfo by bus name; the zero value is ready to use.
type appInfos struct {
	mu sync.Mutex
	m  map[string]appInfo
}

// appInfo returns what is known of the application on bus, asking it the
// first time. An app that does not answer both questions is asked again
// next time: GTK 4 answers its toolkit only once it has started, and an
// answer missing then must not stick.
func (d *Desktop) appInfo(ctx context.Context, bus string) appInfo {
	d.apps.mu.Lock()
	info, ok := d.apps.m[bus]
	d.apps.mu.Unlock()
	if ok {
		return info
	}
	pid, err := d.conn.AppPID(ctx, bus)
	if err != nil {
		return appInfo{}
	}
	info.pid = pid
	name, version, err := d.conn.Toolkit(ctx, atspi.Ref{Bus: bus, Path: atspi.Root.Path})
	if err != nil {
		return info
	}
	info.relative = windowRelative(name, version)
	d.apps.mu.Lock()
	if d.apps.m == nil {
		d.apps.m = map[string]appInfo{}
	}
	d.apps.m[bus] = info
	d.apps.mu.Unlock()
	return info
}

// windowRelative says whether a toolkit gives boxes relative to their
// window: GTK 4 does (its X11 backend has no screen coordinates to give).
func windowRelative(toolkit, version string) bool {
	return strings.EqualFold(toolkit, "gtk") && strings.HasPrefix(version, "4.")
}

// xWindows lists the viewable top-level X windows, or nil when the display
// cannot be asked.
func (d *Desktop) xWindows(ctx context.Context) []xinput.Window {
	disp, err := d.display()
	if err != nil {
		return nil
	}
	wins, err := disp.Windows(ctx)
	if err != nil {
		d.log.Debug("desktop: listing X windows", "err", err)
		return nil
	}
	return wins
}

// titlesOf returns the set of the windows' titles, as names are compared.
func titlesOf(wins []xinput.Window) map[string]bool {
	if wins == nil {
		return nil
	}
	m := map[string]bool{}
	for _, w := range wins {
		m[cleanName(w.Title)] = true
	}
	return m
}

// windowsKey is the windows' titles and boxes as one comparable string: an
// app read against it is reused while it stays the same.
func windowsKey(wins []xinput.Window) string {
	var b strings.Builder
	for _, w := range wins {
		fmt.Fprintf(&b, "\x00%s@%d,%d,%d,%d", cleanName(w.Title), w.X, w.Y, w.W, w.H)
	}
	return b.String()
}

// xWindowOf finds the X window that shows an application's top-level
// window, among the app's own (by process): the one titled the same, else
// the one under the window's box (screen coordinates only), else the app's
// only one.
func xWindowOf(info appInfo, win *atspi.Item, wins []xinput.Window) (xinput.Window, bool) {
	var mine []xinput.Window
	for _, w := range wins {
		if !w.Override && (info.pid == 0 || w.PID == info.pid) {
			mine = append(mine, w)
		}
	}
	title := cleanName(win.Name)
	for i := len(mine) - 1; i >= 0; i-- {
		if title != "" && cleanName(mine[i].Title) == title {
			return mine[i], true
		}
	}
	if e := win.Extents; !info.relative && win.HasExtents && e.W > 0 && e.H > 0 {
		cx, cy := int(e.X+e.W/2), int(e.Y+e.H/2)
		for i := len(mine) - 1; i >= 0; i-- {
			if mine[i].Contains(cx, cy) {
				return mine[i], true
			}
		}
	}
	if len(mine) == 1 && info.pid != 0 {
		return mine[0], true
	}
	return xinput.Window{}, false
}

// origin is where a window-relative app's window sits on the screen: its X
// window's corner plus the margin the toolkit drew itself (GTK's frame
// extents when it says them, else half the difference in size, as GTK's
// client-side border is even on all sides without a compositor).
func origin(info appInfo, win *atspi.Item, wins []xinput.Window) (dx, dy int, ok bool) {
	if !info.relative {
		return 0, 0, false
	}
	xw, ok := xWindowOf(info, win, wins)
	if !ok {
		return 0, 0, false
	}
	dx, dy = xw.X, xw.Y
	switch {
	case xw.Frame != (xinput.Extents{}):
		dx += xw.Frame.Left
		dy += xw.Frame.Top
	case win.HasExtents && win.Extents.W > 0 && int(win.Extents.W) <= xw.W && int(win.Extents.H) <= xw.H:
		dx += (xw.W - int(win.Extents.W)) / 2
		dy += (xw.H - int(win.Extents.H)) / 2
	}
	return dx, dy, true
}

// shift moves a subtree's boxes by dx,dy.
func shift(n *tree.Node, dx, dy int) {
	tree.Walk(n, func(c *tree.Node) bool {
		if c.Bounds != nil {
			b := *c.Bounds
			b.X += float64(dx)
			b.Y += float64(dy)
			c.Bounds = &b
		}
		return true
	})
}

// windowOf returns the top-level window that holds the object, as last
// read: the outermost object below its application, whatever role it
// says it has (GTK 4.8 calls a dialog that opens a second time "widget"),
// or nil for an application or an object the last snapshot did not show.
func (d *Desktop) windowOf(it *atspi.Item) *atspi.Item {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := 0; i < 64 && it != nil && it.Role != atspi.RoleApplication; i++ {
		p := d.items[it.Parent.String()]
		if p == nil || p.Role == atspi.RoleApplication {
			// A window events found may hang under an application object
			// the snapshot does not show (Chromium's GTK 3 Save dialog).
			return it
		}
		it = p
	}
	return nil
}

// screenOffset is what to add to the object's box, read now, to place it
// on the screen: the window's origin for window-relative apps, else zero.
func (d *Desktop) screenOffset(ctx context.Context, it *atspi.Item) (int, int) {
	info := d.appInfo(ctx, it.Ref.Bus)
	if !info.relative {
		return 0, 0
	}
	win := d.windowOf(it)
	if win == nil {
		return 0, 0
	}
	if r, err := d.conn.Extents(ctx, win.Ref); err == nil {
		w := *win
		w.Extents, w.HasExtents = r, true
		win = &w
	}
	dx, dy, _ := origin(info, win, d.xWindows(ctx))
	return dx, dy
}

// raise brings the object's application's window at x,y to the top and
// gives it the focus, as a window manager would on a click; without one
// (plain Xvfb) nothing else will. An app whose process is unknown gets
// whatever window is at the point.
func (d *Desktop) raise(ctx context.Context, disp *xinput.Display, it *atspi.Item, x, y int) {
	pid := d.appInfo(ctx, it.Ref.Bus).pid
	wins, err := disp.Windows(ctx)
	if pid == 0 || err != nil {
		_ = disp.RaiseAndFocusAt(ctx, x, y)
		return
	}
	for i := len(wins) - 1; i >= 0; i-- {
		w := wins[i]
		if w.Contains(x, y) && w.PID == pid {
			if !w.Override {
				_ = disp.Raise(ctx, w.ID)
			}
			return
		}
	}
}

// aim finds where pointer input for the object goes (the centre of its box,
// read now), raises its window and checks that input there reaches its
// application: the topmost window at the point must be one of the app's
// own (its window, a menu it opened), not another application's. An action
// through the object's own interface needs no such check.
func (d *Desktop) aim(ctx context.Context, it *atspi.Item, n *tree.Node) (*xinput.Display, int, int, error) {
	x, y, err := d.centre(ctx, it, n)
	if err != nil {
		return nil, 0, 0, err
	}
	disp, err := d.display()
	if err != nil {
		return nil, 0, 0, err
	}
	d.raise(ctx, disp, it, x, y)
	pid := d.appInfo(ctx, it.Ref.Bus).pid
	if pid == 0 {
		return disp, x, y, nil
	}
	top, err := disp.WindowAt(ctx, x, y)
	if err != nil {
		return nil, 0, 0, &session.ActionError{Reason: fmt.Sprintf("it is off-screen: no window at %d,%d", x, y), Err: err}
	}
	if top.PID != 0 && top.PID != pid {
		what := "another application's window"
		if top.Title != "" {
			what = fmt.Sprintf("window %q", top.Title)
		}
		return nil, 0, 0, &session.ActionError{Reason: fmt.Sprintf("it is covered by %s at %d,%d", what, x, y)}
	}
	return disp, x, y, nil
}

// unlisted notes the X windows on screen that belong to an application the
// desktop lists (shown or not, for lack of windows) but show none of its
// windows in the tree. Chromium's GTK 3 Save dialog,
// opened before anything listened, is not in the accessibility tree at all
// until its focus moves; the note says how to bring it in.
func (d *Desktop) unlisted(apps []listedApp, wins []xinput.Window) []string {
	type owner struct {
		name string
		wins []*tree.Node
	}
	byPID := map[int]*owner{}
	d.apps.mu.Lock()
	for _, la := range apps {
		app := la.node
		info, ok := d.apps.m[la.root.Bus]
		if !ok || info.pid == 0 {
			continue
		}
		o := byPID[info.pid]
		if o == nil {
			o = &owner{name: app.Name}
			byPID[info.pid] = o
		}
		o.wins = append(o.wins, app.Children...)
	}
	d.apps.mu.Unlock()
	var notes []string
	for _, w := range wins {
		o := byPID[w.PID]
		if o == nil || w.Override || w.Title == "" || w.W*w.H < 400 || w.X+w.W <= 0 || w.Y+w.H <= 0 || shows(w, o.wins) {
			continue
		}
		notes = append(notes, fmt.Sprintf("window %q of %q is on screen but not in the accessibility tree yet: press shift+Tab in it to bring it in", w.Title, o.name))
	}
	return notes
}

// shows reports whether one of the windows in the tree is the X window:
// the same title, or a box it holds.
func shows(w xinput.Window, nodes []*tree.Node) bool {
	const slack = 2
	for _, n := range nodes {
		if n.Name != "" && n.Name == cleanName(w.Title) {
			return true
		}
		if b := n.Bounds; b != nil && int(b.X) >= w.X-slack && int(b.Y) >= w.Y-slack &&
			int(b.X+b.W) <= w.X+w.W+slack && int(b.Y+b.H) <= w.Y+w.H+slack {
			return true
		}
	}
	return false
}
