//go:build linux

package desktop

import (
	"context"
	"encoding/binary"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/internal/desktoptest"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/xinput"
)

// xclient is a test's own X connection, for doing what another program or
// a window manager would: moving windows, covering them.
type xclient struct {
	t    *testing.T
	conn *xgb.Conn
	scr  *xproto.ScreenInfo
}

func newXClient(t *testing.T) *xclient {
	t.Helper()
	conn, err := xgb.NewConn()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return &xclient{t: t, conn: conn, scr: xproto.Setup(conn).DefaultScreen(conn)}
}

// sync waits until the server has handled every request sent so far.
func (c *xclient) sync() {
	if _, err := xproto.GetInputFocus(c.conn).Reply(); err != nil {
		c.t.Fatal(err)
	}
}

// move moves a top-level window, as a user dragging it would.
func (c *xclient) move(id uint32, x, y int) {
	xproto.ConfigureWindow(c.conn, xproto.Window(id), xproto.ConfigWindowX|xproto.ConfigWindowY, []uint32{uint32(x), uint32(y)})
	c.sync()
}

// cover maps an override-redirect window owned by this process (a popup
// of another application) over a box, and returns its removal.
func (c *xclient) cover(title string, x, y, w, h int) func() {
	c.t.Helper()
	id, err := xproto.NewWindowId(c.conn)
	if err != nil {
		c.t.Fatal(err)
	}
	err = xproto.CreateWindowChecked(c.conn, c.scr.RootDepth, id, c.scr.Root, int16(x), int16(y), uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, c.scr.RootVisual, xproto.CwBackPixel|xproto.CwOverrideRedirect,
		[]uint32{c.scr.BlackPixel, 1}).Check()
	if err != nil {
		c.t.Fatal(err)
	}
	xproto.ChangeProperty(c.conn, xproto.PropModeReplace, id, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(title)), []byte(title))
	pidAtom, err := xproto.InternAtom(c.conn, false, uint16(len("_NET_WM_PID")), "_NET_WM_PID").Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	pid := binary.LittleEndian.AppendUint32(nil, uint32(os.Getpid()))
	xproto.ChangeProperty(c.conn, xproto.PropModeReplace, id, pidAtom.Atom, xproto.AtomCardinal, 32, 1, pid)
	xproto.MapWindow(c.conn, id)
	c.sync()
	return func() {
		xproto.DestroyWindow(c.conn, id)
		c.sync()
	}
}

// TestCovered: a pointer action on a control that another application's
// window covers is refused, naming that window, and nothing is clicked;
// once it is gone the action goes through. Of two overlapping
// applications, the target's window is raised, not the one on top.
func TestCovered(t *testing.T) {
	d, s := open(t)
	xc := newXClient(t)
	ctx := context.Background()
	openApp(t, s, "zenity", "--entry", "--title=Under", "--text=Item name:")

	ok := resolve(t, mustSnapshot(t, d), `window:Under >> role:button name:OK`)
	b := ok.Bounds
	if b == nil {
		t.Fatal("the OK button has no box")
	}
	uncover := xc.cover("Blocker", int(b.X)-5, int(b.Y)-5, int(b.W)+10, int(b.H)+10)
	hover := action.Action{Kind: action.Hover, Target: `window:Under >> role:button name:OK`}
	_, err := s.Run(ctx, hover)
	if err == nil || !strings.Contains(err.Error(), `covered by window "Blocker"`) {
		t.Errorf("hover over a covered button: %v, want covered by window \"Blocker\"", err)
	}
	right := action.Action{Kind: action.Click, Button: "right", Target: `window:Under >> role:button name:OK`}
	if _, err := s.Run(ctx, right); err == nil || !strings.Contains(err.Error(), "covered") {
		t.Errorf("right click on a covered button: %v", err)
	}
	uncover()
	run(t, s, hover)

	// A second dialog opens on top of the first (both centred); a pointer
	// action on the first raises it.
	openApp(t, s, "zenity", "--info", "--title=Over", "--text=a longer text that makes this dialog wider than the other one")
	disp, err := d.display()
	if err != nil {
		t.Fatal(err)
	}
	cx, cy := int(b.X+b.W/2), int(b.Y+b.H/2)
	if top, err := disp.WindowAt(ctx, cx, cy); err != nil || top.Title != "Over" {
		t.Skipf("the second dialog does not cover the first's OK button here (%+v, %v)", top, err)
	}
	run(t, s, hover)
	if top, err := disp.WindowAt(ctx, cx, cy); err != nil || top.Title != "Under" {
		t.Errorf("after hovering the first dialog's button the top window there is %+v (%v), want Under", top, err)
	}
}

// TestGTK4: GTK 4.8 gives boxes relative to the window. Once its window is
// moved on the screen, the tree's boxes follow it, and a click at a box's
// centre (XTEST, as a user's) lands on that control. Its hidden stack
// pages and class-name names stay out of the tree. With the portal on the
// bus and without: GTK 4 asks the portal for settings as it starts, which
// brings the portal's own (windowless) application onto the desktop.
func TestGTK4(t *testing.T) {
	for _, m := range desktoptest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			desktoptest.Use(t, m)
			gtk4(t)
		})
	}
}

func gtk4(t *testing.T) {
	d, s := open(t)
	xc := newXClient(t)
	ctx := context.Background()
	openApp(t, s, "gtk4-widget-factory")
	disp, err := d.display()
	if err != nil {
		t.Fatal(err)
	}
	var win xinput.Window
	wins, err := disp.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wins {
		if w.Title == "GTK Widget Factory" {
			win = w
		}
	}
	if win.ID == 0 {
		t.Fatalf("no X window titled GTK Widget Factory among %+v", wins)
	}
	const x0, y0 = 150, 90
	xc.move(win.ID, x0, y0)

	snap := mustSnapshot(t, d)
	// GTK 4.8 says its hidden stack pages are visible and names unnamed
	// objects after their class: neither reaches the tree.
	text := tree.Format(snap, tree.Options{Full: true})
	for _, hidden := range []string{`generic "Page 2"`, `generic "Page 3"`, `News Logo`, `Birthdate`, `"Gtk`} {
		if strings.Contains(text, hidden) {
			t.Errorf("the tree shows %s:\n%s", hidden, text)
		}
	}
	if !strings.Contains(text, `checkbox "checkbutton"`) {
		t.Errorf("the shown stack page's controls are missing:\n%s", text)
	}
	for _, app := range snap.Root.Children {
		if len(app.Children) == 0 {
			t.Errorf("the desktop shows %s, which has no window", tree.Line(app))
		}
	}
	wn := resolve(t, snap, `app:gtk4-widget-factory >> window:"GTK Widget Factory"`)
	if wb := wn.Bounds; wb == nil || wb.X < x0 || wb.Y < y0 || wb.X > x0+20 || wb.Y > y0+20 {
		t.Fatalf("window box %+v, want its corner just inside the X window's at %d,%d", wn.Bounds, x0, y0)
	}
	box := resolve(t, snap, `app:gtk4-widget-factory >> role:checkbox name:checkbutton !state:disabled nth:1`)
	it, _ := d.item(box)
	before, err := d.conn.States(ctx, it.Ref)
	if err != nil {
		t.Fatal(err)
	}
	b := box.Bounds
	if b == nil || b.X < wn.Bounds.X || b.Y < wn.Bounds.Y {
		t.Fatalf("check box box %+v is not inside the window's %+v", b, wn.Bounds)
	}
	x, y := int(b.X+b.W/2), int(b.Y+b.H/2)
	if err := disp.RaiseAndFocusAt(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if err := disp.Click(ctx, x, y, xinput.Left, 1); err != nil {
		t.Fatal(err)
	}
	waitState(t, d, it.Ref, atspi.StateChecked, !before.Has(atspi.StateChecked))

	// The same through the desktop's own pointer path: centre() reads the
	// box now and adds the window's origin. A double click toggles twice.
	ch, unsub := d.events.Subscribe()
	defer unsub()
	run(t, s, action.Action{Kind: action.DoubleClick, Target: `app:gtk4-widget-factory >> role:checkbox name:checkbutton !state:disabled nth:1`})
	toggles := 0
	cap, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for toggles < 2 {
		select {
		case e := <-ch:
			if e.Source == it.Ref && e.Type == "object:state-changed:checked" {
				toggles++
			}
		case <-cap.Done():
			t.Fatalf("double click at the check box's centre toggled it %d times, want 2", toggles)
		}
	}
}

// waitState waits, on the desktop's events, until an object's state is
// as wanted, capped at 5 s.
func waitState(t *testing.T, d *Desktop, r atspi.Ref, st atspi.State, want bool) {
	t.Helper()
	ch, unsub := d.events.Subscribe()
	defer unsub()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		got, err := d.conn.States(ctx, r)
		if err == nil && got.Has(st) == want {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("state %v of %s did not become %v", st, r, want)
		}
	}
}

// mustSnapshot reads the desktop.
func mustSnapshot(t *testing.T, d *Desktop) *tree.Snapshot {
	t.Helper()
	snap, err := d.Snapshot(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestOnScreen: a top-level window counts as shown when one of its app's X
// windows shows it, not when it merely lies inside a larger one (Chromium's
// unmapped omnibox pop-ups lie inside the browser window).
func TestOnScreen(t *testing.T) {
	browser := xinput.Window{Title: "Page - Chromium", PID: 7, X: 10, Y: 10, W: 1050, H: 1004}
	other := xinput.Window{Title: "Other", PID: 8, X: 100, Y: 30, W: 900, H: 100}
	win := func(x, y, w, h int32) *atspi.Item {
		return &atspi.Item{HasExtents: true, Extents: atspi.Rect{X: x, Y: y, W: w, H: h}}
	}
	for _, tt := range []struct {
		name   string
		info   appInfo
		screen []xinput.Window
		win    *atspi.Item
		want   bool
	}{
		{"the browser window", appInfo{pid: 7}, []xinput.Window{browser}, win(10, 10, 1050, 1004), true},
		{"an unmapped pop-up inside it", appInfo{pid: 7}, []xinput.Window{browser, other}, win(109, 35, 888, 88), false},
		{"an unmapped pop-up over a dialog", appInfo{pid: 7}, []xinput.Window{browser, {Title: "Save File", PID: 7, W: 815, H: 407}}, win(99, 25, 1118, 88), false},
		{"the dialog", appInfo{pid: 7}, []xinput.Window{browser, {Title: "Save File", PID: 7, W: 815, H: 407}}, win(0, 0, 815, 407), true},
		{"a window with shadows around it", appInfo{pid: 7}, []xinput.Window{{PID: 7, X: 90, Y: 90, W: 240, H: 160}}, win(116, 116, 188, 108), true},
		{"an app that owns no X window", appInfo{pid: 9}, []xinput.Window{browser}, win(109, 35, 888, 88), true},
		{"an unknown process", appInfo{}, []xinput.Window{browser}, win(109, 35, 888, 88), true},
		{"window-relative boxes", appInfo{pid: 7, relative: true}, []xinput.Window{browser}, win(0, 0, 300, 20), true},
		{"no box", appInfo{pid: 7}, []xinput.Window{browser}, &atspi.Item{}, true},
	} {
		a := &app{info: tt.info, screen: tt.screen}
		if got := a.onScreen(tt.win); got != tt.want {
			t.Errorf("%s: onScreen = %v, want %v", tt.name, got, tt.want)
		}
	}
}
