package clipboard

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// skipReason is set when the tests cannot run here (no Xvfb, outside CI).
var skipReason string

// TestMain runs the tests against a private Xvfb, so they never touch a
// real display (or the user's clipboard). Xvfb picks a free display number
// itself and writes it to the -displayfd pipe once it accepts connections.
func TestMain(m *testing.M) {
	flag.Parse()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if os.Getenv("CI") == "true" {
			fmt.Fprintln(os.Stderr, "clipboard tests need Xvfb and CI must provide it: apt-get install xvfb")
			os.Exit(1)
		}
		skipReason = "Xvfb is not installed (apt-get install xvfb)"
		os.Exit(m.Run())
	}
	display, stop, err := startXvfb()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("DISPLAY", display)
	code := m.Run()
	stop()
	os.Exit(code)
}

func startXvfb() (display string, stop func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	var out bytes.Buffer
	// -noreset: by default an X server resets when its last client leaves,
	// which drops connections made meanwhile (EOF, "connection reset").
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-noreset")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	if err := cmd.Start(); err != nil {
		w.Close()
		return "", nil, fmt.Errorf("start Xvfb: %v", err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	stop = func() {
		cmd.Process.Kill()
		<-exited
	}
	select {
	case n := <-line:
		if n == "" {
			stop()
			return "", nil, fmt.Errorf("Xvfb gave no display number:\n%s", out.String())
		}
		return ":" + n, stop, nil
	case err := <-exited:
		return "", nil, fmt.Errorf("Xvfb exited (%v):\n%s", err, out.String())
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, fmt.Errorf("Xvfb did not start in 30s:\n%s", out.String())
	}
}

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
	quietAuthNoise()
	conn, err := xgb.NewConn()
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
