//go:build linux

package xinput

import (
	"context"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/keys"
)

// isModifier reports the keysyms of Shift, Control, Caps Lock, Alt, Meta
// and Super.
func isModifier(sym xproto.Keysym) bool { return sym >= 0xffe1 && sym <= 0xffee }

// TestType: text with upper case, punctuation, a newline and characters the
// US map lacks arrives as the same keysyms. The missing ones are bound to
// spare keycodes, listed on the root window, and stay bound: typing them
// again from a new Display binds nothing new.
func TestType(t *testing.T) {
	c := newClient(t)
	w := c.window(0, 0, 400, 300)
	c.focus(w)

	text := "Hello, World! 42 ~A-Z? <é€ ü> 日本\n(x)"
	var want []xproto.Keysym
	for _, r := range text {
		switch {
		case r == '\n':
			want = append(want, 0xff0d)
		case r < 0x100:
			want = append(want, xproto.Keysym(r))
		default:
			want = append(want, 0x01000000|xproto.Keysym(r))
		}
	}
	exotic := []xproto.Keysym{0xe9, 0x010020ac, 0xfc, 0x010065e5, 0x0100672c} // é € ü 日 本
	var first []xproto.Keycode
	for round := range 2 {
		d := open(t)
		if err := d.Type(context.Background(), text); err != nil {
			t.Fatal(err)
		}
		var got []xproto.Keysym
		for _, k := range c.keyPresses(c.events()) {
			if !isModifier(k.sym) {
				got = append(got, k.sym)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("round %d: typed keysyms\n got %x\nwant %x", round, got, want)
		}
		d.Close()
		bound := c.bound()
		for _, sym := range exotic {
			if code := c.keycodeOf(sym); !slices.Contains(bound, code) {
				t.Errorf("round %d: keysym %#x is on keycode %d, not in the bound list %v", round, sym, code, bound)
			}
		}
		if round == 0 {
			first = bound
		} else if !slices.Equal(bound, first) {
			t.Errorf("typing the same text again changed the bound list from %v to %v", first, bound)
		}
	}
}

// TestRebind: with more distinct characters than spare keycodes, the
// oldest bindings are reused, and each character still types right.
func TestRebind(t *testing.T) {
	c := newClient(t)
	d := open(t)
	c.focus(c.window(0, 0, 400, 300))
	ctx := context.Background()
	for r := 'α'; r <= 'ω'; r++ { // 25 Greek letters, more than Xvfb's ~19 spares
		if err := d.Type(ctx, string(r)); err != nil {
			t.Fatal(err)
		}
		ks := c.keyPresses(c.events())
		if len(ks) != 1 || ks[0].sym != 0x01000000|xproto.Keysym(r) {
			t.Fatalf("typing %c gave %x", r, ks)
		}
	}
	bound := c.bound()
	if len(bound) < 5 || len(bound) > 64 {
		t.Errorf("bound list has %d keycodes: %v", len(bound), bound)
	}
	if code := c.keycodeOf(0x01000000 | 'α'); code != 0 {
		t.Errorf("α, the oldest binding, is still on keycode %d", code)
	}
	if code := c.keycodeOf(0x01000000 | 'ω'); code == 0 || code != bound[len(bound)-1] {
		t.Errorf("ω is on keycode %d, want the newest in %v", code, bound)
	}
}

// TestKeysyms: every key keys.Parse can return has an X keysym.
func TestKeysyms(t *testing.T) {
	for _, k := range append(keys.Names(), " ", "+", "a", "é", "日") {
		if _, err := keyKeysym(k); err != nil {
			t.Errorf("keyKeysym(%q): %v", k, err)
		}
	}
	for k, want := range map[string]xproto.Keysym{"Enter": 0xff0d, "F24": 0xffd5, "Meta": 0xffeb, " ": 0x20, "€": 0x010020ac} {
		if got, _ := keyKeysym(k); got != want {
			t.Errorf("keyKeysym(%q) = %#x, want %#x", k, got, want)
		}
	}
}

// TestPress: chords arrive with their modifier state; a key on the shifted
// column ("A") gets Shift; a lone modifier is pressed as a key.
func TestPress(t *testing.T) {
	c := newClient(t)
	d := open(t)
	c.focus(c.window(0, 0, 400, 300))

	chords, err := keys.Parse("ctrl+s shift+Tab Enter F5 A alt+x meta+y ctrl+shift+Home shift")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Press(context.Background(), chords); err != nil {
		t.Fatal(err)
	}
	const (
		shift = xproto.ModMaskShift
		ctrl  = xproto.ModMaskControl
		alt   = xproto.ModMask1 // in Xvfb's map
		super = xproto.ModMask4
	)
	want := []keyPress{
		{0xffe3, 0}, {'s', ctrl}, // Control_L
		{0xffe1, 0}, {0xfe20, shift}, // Shift_L, Tab: shifted it is ISO_Left_Tab
		{0xff0d, 0}, // Return
		{0xffc2, 0}, // F5
		{0xffe1, 0}, {'A', shift},
		{0xffe9, 0}, {'x', alt}, // Alt_L
		{0xffeb, 0}, {'y', super}, // Super_L
		{0xffe3, 0}, {0xffe1, ctrl}, {0xff50, ctrl | shift}, // Home
		{0xffe1, 0}, // a lone shift
	}
	var got []keyPress
	for _, k := range c.keyPresses(c.events()) {
		got = append(got, keyPress{k.sym, k.state & (shift | ctrl | alt | super)})
	}
	if !slices.Equal(got, want) {
		t.Errorf("key presses\n got %x\nwant %x", got, want)
	}
}

// TestClick: the button presses arrive at the window-relative point, with
// the right button, as many times as asked.
func TestClick(t *testing.T) {
	c := newClient(t)
	d := open(t)
	w := c.window(100, 50, 300, 200)
	ctx := context.Background()
	for _, tt := range []struct {
		b     Button
		count int
		want  int
	}{{Left, 2, 2}, {Right, 1, 1}, {Middle, 0, 1}} {
		if err := d.Click(ctx, 150, 120, tt.b, tt.count); err != nil {
			t.Fatal(err)
		}
		presses, releases := 0, 0
		for _, ev := range c.events() {
			switch e := ev.(type) {
			case xproto.ButtonPressEvent:
				presses++
				if e.Event != w || e.Detail != xproto.Button(tt.b) || e.EventX != 50 || e.EventY != 70 || e.RootX != 150 {
					t.Errorf("button %d: press %+v, want button %d at 50,70 in window %d", tt.b, e, tt.b, w)
				}
			case xproto.ButtonReleaseEvent:
				releases++
			}
		}
		if presses != tt.want || releases != tt.want {
			t.Errorf("button %d count %d: %d presses, %d releases, want %d", tt.b, tt.count, presses, releases, tt.want)
		}
	}
	// Move: the window sees the motion at the new point.
	if err := d.Move(ctx, 390, 240); err != nil {
		t.Fatal(err)
	}
	evs := c.events()
	if len(evs) == 0 {
		t.Fatal("no motion event after Move")
	}
	if m, ok := evs[len(evs)-1].(xproto.MotionNotifyEvent); !ok || m.EventX != 290 || m.EventY != 190 {
		t.Errorf("after Move the last event is %v, want motion at 290,190", evs[len(evs)-1])
	}
}

// TestScroll: wheel notches are buttons 4 (up), 5 (down), 6 (left), 7 (right).
func TestScroll(t *testing.T) {
	c := newClient(t)
	d := open(t)
	c.window(0, 0, 400, 300)
	ctx := context.Background()
	for _, tt := range []struct {
		dx, dy int
		want   []byte
	}{{0, 3, []byte{5, 5, 5}}, {1, -2, []byte{4, 4, 7}}, {-1, 0, []byte{6}}, {0, 0, nil}} {
		if err := d.Scroll(ctx, 200, 100, tt.dx, tt.dy); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for _, ev := range c.events() {
			if e, ok := ev.(xproto.ButtonPressEvent); ok {
				got = append(got, byte(e.Detail))
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Scroll(%d, %d): buttons %v, want %v", tt.dx, tt.dy, got, tt.want)
		}
	}
}

// TestRaiseAndFocusAt: the topmost window at the point is raised and gets
// the focus; the root alone is an error.
func TestRaiseAndFocusAt(t *testing.T) {
	c := newClient(t)
	d := open(t)
	a := c.window(0, 0, 200, 200)
	b := c.window(100, 100, 200, 200) // mapped last: on top where they overlap
	ctx := context.Background()
	check := func(x, y int, want xproto.Window) {
		t.Helper()
		if err := d.RaiseAndFocusAt(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		f, err := xproto.GetInputFocus(c.conn).Reply()
		if err != nil {
			t.Fatal(err)
		}
		tree, err := xproto.QueryTree(c.conn, c.screen.Root).Reply()
		if err != nil {
			t.Fatal(err)
		}
		top := tree.Children[len(tree.Children)-1]
		if f.Focus != want || top != want {
			t.Errorf("at %d,%d: focus %d, top %d, want %d", x, y, f.Focus, top, want)
		}
	}
	check(50, 50, a)   // only a is there: a comes up over b
	check(150, 150, a) // both: a is on top now
	check(250, 250, b)
	check(150, 150, b)
	if err := d.RaiseAndFocusAt(ctx, 1000, 1000); err == nil || !strings.Contains(err.Error(), "no window at 1000,1000") {
		t.Errorf("over the bare root: %v", err)
	}
}

// TestOpenErrors: no display, a display nobody serves, a bad name and a
// server that never answers all fail quickly with a clear error.
func TestOpenErrors(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	t.Setenv("DISPLAY", "")
	_, err := Open("")
	wantErr(t, "DISPLAY unset", err, "no X display: DISPLAY is not set (start one with `canopy desktop up`)")
	_, err = Open(":987")
	wantErr(t, "no server", err, "no X display at :987", "canopy desktop up")
	_, err = Open("bogus")
	wantErr(t, "bad name", err, "bad display string")

	sock := t.TempDir() + "/x:0"
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accept and never answer
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { conn.Close() })
		}
	}()
	defer func(d time.Duration) { openTimeout = d }(openTimeout)
	openTimeout = 300 * time.Millisecond
	start := time.Now()
	_, err = Open(sock)
	wantErr(t, "silent server", err, "did not answer")
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Open took %v with a silent server", el)
	}
}

// TestBadInput: bad arguments are refused before anything is sent, and a
// closed Display says so.
func TestBadInput(t *testing.T) {
	c := newClient(t)
	d := open(t)
	c.focus(c.window(0, 0, 400, 300))
	ctx := context.Background()
	wantErr(t, "button 5", d.Click(ctx, 10, 10, Button(5), 1), "unknown mouse button 5")
	wantErr(t, "off screen", d.Click(ctx, -1, 10, Left, 1), "point -1,10 is outside the 1280×1024 screen")
	wantErr(t, "off screen", d.Scroll(ctx, 1280, 0, 0, 1), "outside")
	wantErr(t, "control char", d.Type(ctx, "a\x07b"), "cannot type U+0007")
	wantErr(t, "bad UTF-8", d.Type(ctx, "a\xffb"), "not valid UTF-8")
	wantErr(t, "unknown key", d.Press(ctx, []keys.Chord{{Key: "Hyper"}}), `key "Hyper" has no X keysym`)
	wantErr(t, "no keys", d.Press(ctx, nil), "no keys given")
	if evs := c.events(); len(evs) != 0 {
		t.Errorf("bad input sent %d events: %v", len(evs), evs)
	}
	d.Close()
	d.Close()
	wantErr(t, "closed", d.Type(ctx, "a"), "display is closed")
}

// countdown is a context whose Err reports cancellation after n calls, to
// stop a call half way.
type countdown struct {
	context.Context
	n atomic.Int32
}

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestCancel: a context that ends half way stops typing there and leaves
// no key down.
func TestCancel(t *testing.T) {
	c := newClient(t)
	d := open(t)
	c.focus(c.window(0, 0, 400, 300))
	ctx := &countdown{Context: context.Background()}
	ctx.n.Store(2)
	wantErr(t, "cancelled", d.Type(ctx, "abcdef"), "context canceled")
	var got []xproto.Keysym
	for _, k := range c.keyPresses(c.events()) {
		got = append(got, k.sym)
	}
	if !slices.Equal(got, []xproto.Keysym{'a', 'b'}) {
		t.Errorf("typed %x before the cancel, want a b", got)
	}
	km, err := xproto.QueryKeymap(c.conn).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(km.Keys, func(b byte) bool { return b != 0 }) {
		t.Errorf("keys still down after the cancel: %x", km.Keys)
	}
}

func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not contain %q", what, err, p)
		}
	}
}
