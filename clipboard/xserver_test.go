//go:build linux

package clipboard

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
	"github.com/canopy-dev/canopy/internal/xvfbtest"
)

// skipReason is set when the tests cannot run here (no Xvfb, outside CI).
var skipReason string

// TestMain runs the tests against a private Xvfb, so they never touch a
// real display (or the user's clipboard). Xvfb picks a free display number
// itself and writes it to the -displayfd pipe once it accepts connections.
func TestMain(m *testing.M) { os.Exit(xvfbtest.Main(m, "clipboard", &skipReason)) }

// newClip opens a Clipboard for the test, closed when it ends.
func newClip(t *testing.T) *Clipboard {
	t.Helper()
	return newSelection(t, "CLIPBOARD")
}

// newSelection opens a Clipboard on the named selection.
func newSelection(t *testing.T, selection string) *Clipboard {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	c, err := open("", selection)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// raw is a bare X client of the test's own: a hung owner, or a requestor
// that speaks the selection protocol by hand to check what we serve.
type raw struct {
	t      *testing.T
	conn   *xgb.Conn
	root   xproto.Window
	win    xproto.Window
	events chan xgb.Event
}

func newRaw(t *testing.T) *raw {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	conn, err := xconn.Dial(context.Background(), os.Getenv("DISPLAY"))
	if err != nil {
		t.Fatalf("test client: %v", err)
	}
	r := &raw{t: t, conn: conn, events: make(chan xgb.Event, 100)}
	go func() {
		defer close(r.events)
		for {
			ev, err := conn.WaitForEvent()
			if ev == nil && err == nil {
				return
			}
			if ev != nil {
				r.events <- ev
			}
		}
	}()
	t.Cleanup(func() {
		conn.Close()
		for range r.events {
		}
	})
	screen := xproto.Setup(conn).DefaultScreen(conn)
	r.root = screen.Root
	r.win, err = xproto.NewWindowId(conn)
	if err != nil {
		t.Fatal(err)
	}
	err = xproto.CreateWindowChecked(conn, 0, r.win, screen.Root, 0, 0, 1, 1, 0, xproto.WindowClassInputOnly, 0,
		xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange}).Check()
	if err != nil {
		t.Fatalf("test client window: %v", err)
	}
	return r
}

func (r *raw) atom(name string) xproto.Atom {
	r.t.Helper()
	a, err := xproto.InternAtom(r.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		r.t.Fatal(err)
	}
	return a.Atom
}

// own takes CLIPBOARD (with CurrentTime, as a careless client would) and
// then never answers a request.
func (r *raw) own() {
	r.t.Helper()
	clip := r.atom("CLIPBOARD")
	xproto.SetSelectionOwner(r.conn, r.win, clip, xproto.TimeCurrentTime)
	o, err := xproto.GetSelectionOwner(r.conn, clip).Reply()
	if err != nil || o.Owner != r.win {
		r.t.Fatalf("test client did not get the clipboard: %v", err)
	}
}

// disown empties the clipboard, whoever owns it.
func (r *raw) disown() {
	r.t.Helper()
	xproto.SetSelectionOwner(r.conn, xproto.WindowNone, r.atom("CLIPBOARD"), xproto.TimeCurrentTime)
	if _, err := xproto.GetInputFocus(r.conn).Reply(); err != nil {
		r.t.Fatal(err)
	}
}

// convert asks the owner for target into prop (None: the obsolete form)
// and returns the property it answered with.
func (r *raw) convert(target string, prop xproto.Atom) xproto.Atom {
	r.t.Helper()
	xproto.ConvertSelection(r.conn, r.win, r.atom("CLIPBOARD"), r.atom(target), prop, xproto.TimeCurrentTime)
	n := r.wait(func(ev xgb.Event) bool { _, ok := ev.(xproto.SelectionNotifyEvent); return ok })
	return n.(xproto.SelectionNotifyEvent).Property
}

// wait returns the first event match accepts, failing after 5 s.
func (r *raw) wait(match func(xgb.Event) bool) xgb.Event {
	r.t.Helper()
	return r.waitFor(5*time.Second, match)
}

// waitFor returns the first event match accepts, failing after d.
func (r *raw) waitFor(d time.Duration, match func(xgb.Event) bool) xgb.Event {
	r.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case ev := <-r.events:
			if match(ev) {
				return ev
			}
		case <-timeout:
			r.t.Fatalf("test client: the event awaited did not come within %v", d)
		}
	}
}

// get reads and deletes a property of the test window.
func (r *raw) get(prop xproto.Atom) (typ xproto.Atom, format byte, data []byte) {
	r.t.Helper()
	p, err := xproto.GetProperty(r.conn, true, r.win, prop, xproto.GetPropertyTypeAny, 0, 1<<24).Reply()
	if err != nil {
		r.t.Fatal(err)
	}
	return p.Type, p.Format, p.Value
}
