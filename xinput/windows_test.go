//go:build linux

package xinput

import (
	"context"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/jezek/xgb/xproto"
)

// setProp sets a property on a window: a string (8-bit) or CARDINALs.
func (c *client) setProp(w xproto.Window, name string, value any) {
	c.t.Helper()
	a, err := xproto.InternAtom(c.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		c.t.Fatal(err)
	}
	switch v := value.(type) {
	case string:
		xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, a.Atom, xproto.AtomString, 8, uint32(len(v)), []byte(v))
	case []uint32:
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], x)
		}
		xproto.ChangeProperty(c.conn, xproto.PropModeReplace, w, a.Atom, xproto.AtomCardinal, 32, uint32(len(v)), b)
	}
	c.sync()
}

// child creates and maps a window inside parent at x,y (relative).
func (c *client) child(parent xproto.Window, x, y, w, h int) xproto.Window {
	c.t.Helper()
	id, err := xproto.NewWindowId(c.conn)
	if err != nil {
		c.t.Fatal(err)
	}
	err = xproto.CreateWindowChecked(c.conn, c.screen.RootDepth, id, parent,
		int16(x), int16(y), uint16(w), uint16(h), 0, xproto.WindowClassInputOutput, c.screen.RootVisual,
		xproto.CwBackPixel, []uint32{c.screen.WhitePixel}).Check()
	if err != nil {
		c.t.Fatalf("create window: %v", err)
	}
	xproto.MapWindow(c.conn, id)
	c.sync()
	return id
}

// TestWindows: titles, owners, GTK's frame extents and boxes are read from
// the windows' properties; a frame without title or owner (a window
// manager's) is looked into for its client; WindowAt finds the topmost
// window at a point and Raise changes which one that is.
func TestWindows(t *testing.T) {
	c := newClient(t)
	d := open(t)
	ctx := context.Background()

	a := c.window(0, 0, 300, 200)
	c.setProp(a, "WM_NAME", "Alpha")
	c.setProp(a, "_NET_WM_PID", []uint32{4242})
	c.setProp(a, "_GTK_FRAME_EXTENTS", []uint32{5, 6, 7, 8})
	c.setProp(a, "WM_CLASS", "alpha\x00Alpha\x00")
	frame := c.window(200, 100, 300, 300) // mapped last: on top of a
	client := c.child(frame, 10, 20, 250, 250)
	c.setProp(client, "WM_NAME", "Beta")
	c.setProp(client, "_NET_WM_PID", []uint32{77})

	wins, err := d.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byTitle := map[string]Window{}
	for _, w := range wins {
		byTitle[w.Title] = w
	}
	if got, want := byTitle["Alpha"], (Window{ID: uint32(a), Title: "Alpha", PID: 4242, Class: []string{"alpha", "Alpha"}, X: 0, Y: 0, W: 300, H: 200, Frame: Extents{5, 6, 7, 8}}); !reflect.DeepEqual(got, want) {
		t.Errorf("Alpha = %+v, want %+v", got, want)
	}
	if got, want := byTitle["Beta"], (Window{ID: uint32(frame), Title: "Beta", PID: 77, X: 210, Y: 120, W: 250, H: 250}); !reflect.DeepEqual(got, want) {
		t.Errorf("Beta (in a frame) = %+v, want %+v", got, want)
	}
	// The keyboard focus on the client inside the frame: the frame's
	// window holds it.
	xproto.SetInputFocus(c.conn, xproto.InputFocusParent, client, xproto.TimeCurrentTime)
	c.sync()
	if got, ok, err := d.Focused(ctx); err != nil || !ok || got.ID != uint32(frame) || got.Title != "Beta" {
		t.Errorf("Focused with the focus in the frame's client = %+v, %v, %v", got, ok, err)
	}
	xproto.SetInputFocus(c.conn, xproto.InputFocusParent, a, xproto.TimeCurrentTime)
	c.sync()
	if got, ok, err := d.Focused(ctx); err != nil || !ok || got.Title != "Alpha" {
		t.Errorf("Focused with the focus on Alpha = %+v, %v, %v", got, ok, err)
	}

	at := func(x, y int) string {
		t.Helper()
		w, err := d.WindowAt(ctx, x, y)
		if err != nil {
			return err.Error()
		}
		return w.Title
	}
	if got := at(250, 150); got != "Beta" {
		t.Errorf("at 250,150 before raising Alpha: %q, want Beta", got)
	}
	if got := at(205, 105); got != "Alpha" {
		t.Errorf("at 205,105 (the frame's border, Alpha below): %q, want Alpha", got)
	}
	if err := d.Raise(ctx, uint32(a)); err != nil {
		t.Fatal(err)
	}
	if got := at(250, 150); got != "Alpha" {
		t.Errorf("at 250,150 after raising Alpha: %q", got)
	}
	f, err := xproto.GetInputFocus(c.conn).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if f.Focus != a {
		t.Errorf("focus = %d after Raise, want Alpha (%d)", f.Focus, a)
	}
	// An override-redirect window (a menu) stays above a raised one.
	menu := c.overrideWindow(240, 140, 20, 20)
	c.setProp(menu, "WM_NAME", "Menu")
	if err := d.Raise(ctx, uint32(frame)); err != nil {
		t.Fatal(err)
	}
	if got := at(250, 150); got != "Menu" {
		t.Errorf("at 250,150 after raising Beta under a menu: %q, want Menu", got)
	}
	if got := at(230, 150); got != "Beta" {
		t.Errorf("at 230,150 after raising Beta: %q, want Beta", got)
	}
	if got := at(1200, 1000); !strings.Contains(got, "no window at 1200,1000") {
		t.Errorf("over the bare root: %q", got)
	}
	if err := d.Raise(ctx, 0x7ffffff); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("Raise of a window that does not exist: %v", err)
	}
}
