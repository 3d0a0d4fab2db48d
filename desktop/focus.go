//go:build linux

package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// FocusTimeout caps how long open_app and activate wait for a window to
// take the keyboard focus.
const FocusTimeout = 3 * time.Second

// focusWindow gives a top-level window the keyboard focus, as a window
// manager does for a window that opens or is clicked: it raises the X
// window that shows it and sets the input focus there. Without a window
// manager (plain Xvfb) nothing else would, and keys would go nowhere. The
// application then moves the focus to its default focus widget (an
// editor's text area, a dialog's first field) by itself.
//
// It then waits for the application to say the window has the focus
// (awaitFocus), up to FocusTimeout: an application that is hung, or a
// window that closed meanwhile, is an error, not a silent success.
func (d *Desktop) focusWindow(ctx context.Context, win atspi.Ref) error {
	it, err := d.conn.ReadItem(ctx, win)
	if err != nil {
		if errors.Is(err, atspi.ErrDefunct) {
			return fmt.Errorf("%w (its window closed)", session.ErrStale)
		}
		return fmt.Errorf("reading the window to focus: %w", err)
	}
	if r, err := d.conn.Extents(ctx, win); err == nil {
		it.Extents, it.HasExtents = r, true
	}
	disp, err := d.display()
	if err != nil {
		return err
	}
	ch, unsub := d.events.Subscribe()
	defer unsub()
	xw, ok := xWindowOf(d.appInfo(ctx, win.Bus), it, d.xWindows(ctx))
	switch {
	case ok:
		err = disp.Raise(ctx, xw.ID)
	case it.HasExtents && it.Extents.W > 0 && it.Extents.H > 0:
		e := it.Extents
		err = disp.RaiseAndFocusAt(ctx, int(e.X+e.W/2), int(e.Y+e.H/2))
	default:
		return &session.ActionError{Reason: fmt.Sprintf("no window on the screen shows %s", describeWindow(it))}
	}
	if err != nil {
		return fmt.Errorf("focusing %s: %w", describeWindow(it), err)
	}
	return d.awaitFocus(ctx, it, ch)
}

// awaitFocus waits until the application says the window has the focus:
// the window is active, or an object inside it is focused (GTK 4.8 never
// says active). It looks again after every burst of events from the
// window's application, up to FocusTimeout.
func (d *Desktop) awaitFocus(ctx context.Context, win *atspi.Item, events <-chan atspi.Event) error {
	ctx, cancel := context.WithTimeout(ctx, FocusTimeout)
	defer cancel()
	for {
		st, err := d.conn.States(ctx, win.Ref)
		switch {
		case errors.Is(err, atspi.ErrDefunct) || err == nil && st.Has(atspi.StateDefunct):
			return fmt.Errorf("%w (its window closed)", session.ErrStale)
		case err == nil && (st.Has(atspi.StateActive) || d.focusInside(ctx, win.Ref)):
			return nil
		}
		select {
		case <-ctx.Done():
			return &session.ActionError{Reason: fmt.Sprintf("%s did not take the keyboard focus within %s (is %s busy?)",
				describeWindow(win), FocusTimeout, d.appLabel(win.Ref.Bus))}
		case e := <-events:
			if e.Source.Bus != win.Ref.Bus {
				continue
			}
			drain(events) // one look per burst
		}
	}
}

// focusInside reports whether an object in the window (not the window
// itself) is focused.
func (d *Desktop) focusInside(ctx context.Context, win atspi.Ref) bool {
	t, err := d.conn.ReadApp(ctx, win, atspi.ReadOptions{Descend: d.descend})
	if err != nil {
		return false
	}
	for r, it := range t.Items {
		if r != win && it.States.Has(atspi.StateFocused) {
			return true
		}
	}
	return false
}

// describeWindow names a window for a message: `window "Title"`.
func describeWindow(it *atspi.Item) string {
	if name := cleanName(it.Name); name != "" {
		return fmt.Sprintf("window %q", name)
	}
	return "the window"
}

// appLabel names an application for a message, as the tree names it, or
// "the application".
func (d *Desktop) appLabel(bus string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if name, err := d.conn.Name(ctx, atspi.Ref{Bus: bus, Path: atspi.Root.Path}); err == nil && name != "" {
		return strconv.Quote(appName(name, d.appInfo(ctx, bus).pid))
	}
	return "the application"
}

// activate brings the window that holds the target to the front and gives
// it the keyboard focus (the target's own focus, too, when it can take
// one). An application's target is its first window.
func (d *Desktop) activate(ctx context.Context, it *atspi.Item, n *tree.Node) error {
	win := d.windowOf(it)
	if win == nil && it.Role == atspi.RoleApplication && n != nil {
		for _, c := range n.Children {
			if w, ok := d.item(c); ok {
				win = w
				break
			}
		}
	}
	if win == nil {
		return &session.ActionError{Reason: "it is not in a window"}
	}
	if err := d.focusWindow(ctx, win.Ref); err != nil {
		return err
	}
	if it != win && it.Role != atspi.RoleApplication && it.Has("Component") {
		_ = d.conn.GrabFocus(ctx, it.Ref)
	}
	return nil
}

// ownedBy reports whether process pid is ancestor or one of its
// descendants, by the parent links in /proc. Programs that a launcher
// starts (a wrapper script, a forked child) count as the launcher's.
func ownedBy(pid, ancestor int) bool {
	for i := 0; i < 64 && pid > 1; i++ {
		if pid == ancestor {
			return true
		}
		pid = parentPID(pid)
	}
	return false
}

// parentPID reads a process's parent from /proc/PID/stat, or 0.
func parentPID(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
