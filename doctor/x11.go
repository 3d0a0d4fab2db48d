//go:build linux

package doctor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/vdesk"
	"github.com/canopy-dev/canopy/xinput"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// checkDisplay connects to the X display as xinput does for input, and
// reads the screen size, the XTEST version and the top-level windows.
func checkDisplay(ctx context.Context, name string, timeout time.Duration) (Check, []window) {
	c := Check{Name: NameDisplay}
	if name == "" {
		c.Detail = "DISPLAY is not set"
		c.Fix = fixDesktop + " (or run inside a desktop session)"
		return c, nil
	}
	start := time.Now()
	d, err := within(ctx, timeout, func(context.Context) (*xinput.Display, error) {
		return xinput.Open(name)
	}, (*xinput.Display).Close)
	if err != nil {
		// xinput's own advice is the fix below.
		c.Detail = strings.TrimSuffix(err.Error(), " (start one with `canopy desktop up`)")
		if !strings.Contains(c.Detail, name) {
			c.Detail = name + ": " + c.Detail
		}
		if strings.Contains(err.Error(), "XTEST") {
			c.Fix = "start the X server without -disable-xtest (Xvfb has XTEST by default), or use " + fixDesktop
		} else {
			c.Fix = fixDesktop + ", or set DISPLAY to a running X server"
		}
		return c, nil
	}
	w, h := d.Size()
	d.Close()
	parts := []string{fmt.Sprintf("%dx%d", w, h)}
	if s := xServer(name); s != "" {
		parts[0] = s + " " + parts[0]
	}
	v, wins := probeX(ctx, name, timeout-time.Since(start))
	parts = append(parts, strings.TrimSpace("XTEST "+v))
	c.OK = true
	c.Detail = fmt.Sprintf("%s (%s)", name, strings.Join(parts, ", "))
	return c, wins
}

// window is a top-level X window's owner, as the window says.
type window struct {
	PID   int    // _NET_WM_PID; 0 when unset
	Class string // WM_CLASS's class part ("Chromium", "Zenity")
}

// probeX asks the X server for its XTEST version ("" when it does not say
// in time) and lists the top-level windows' owners. xinput exposes
// neither, hence a second, short connection.
func probeX(ctx context.Context, name string, timeout time.Duration) (version string, wins []window) {
	if timeout <= 0 {
		return "", nil
	}
	conn, err := within(ctx, timeout, func(context.Context) (*xgb.Conn, error) {
		return xgb.NewConnDisplay(name)
	}, (*xgb.Conn).Close)
	if err != nil {
		return "", nil
	}
	defer conn.Close()
	type result struct {
		version string
		wins    []window
	}
	r, _ := within(ctx, timeout, func(context.Context) (result, error) {
		var r result
		if xtest.Init(conn) == nil {
			if v, err := xtest.GetVersion(conn, 2, 2).Reply(); err == nil {
				r.version = fmt.Sprintf("%d.%d", v.MajorVersion, v.MinorVersion)
			}
		}
		r.wins = windows(conn)
		return r, nil
	}, nil)
	return r.version, r.wins
}

// windows lists the owners of the root's children, and of their children
// when a window manager put them into frames.
func windows(conn *xgb.Conn) []window {
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	pidAtom, err := xproto.InternAtom(conn, true, uint16(len("_NET_WM_PID")), "_NET_WM_PID").Reply()
	if err != nil || pidAtom.Atom == 0 {
		return nil
	}
	tree, err := xproto.QueryTree(conn, root).Reply()
	if err != nil {
		return nil
	}
	var out []window
	for depth, level := 0, tree.Children; depth < 2 && len(level) > 0; depth++ {
		type cookies struct {
			pid, class xproto.GetPropertyCookie
			tree       xproto.QueryTreeCookie
		}
		cs := make([]cookies, len(level))
		for i, w := range level { // pipelined: all requests, then the replies
			cs[i] = cookies{
				pid:   xproto.GetProperty(conn, false, w, pidAtom.Atom, xproto.AtomCardinal, 0, 1),
				class: xproto.GetProperty(conn, false, w, xproto.AtomWmClass, xproto.AtomString, 0, 64),
			}
			if depth == 0 {
				cs[i].tree = xproto.QueryTree(conn, w)
			}
		}
		var next []xproto.Window
		for _, c := range cs {
			var win window
			if r, err := c.pid.Reply(); err == nil && r.Format == 32 && len(r.Value) >= 4 {
				win.PID = int(xgb.Get32(r.Value))
			}
			if r, err := c.class.Reply(); err == nil && r.Format == 8 {
				parts := strings.Split(strings.TrimRight(string(r.Value), "\x00"), "\x00")
				win.Class = parts[len(parts)-1]
			}
			if depth == 0 {
				if t, err := c.tree.Reply(); err == nil && win.Class == "" {
					next = append(next, t.Children...)
				}
			}
			if win.PID > 0 || win.Class != "" {
				out = append(out, win)
			}
		}
		level = next
	}
	return out
}

// xServer names the X server program behind display: Xvfb for the
// virtual desktop of $CANOPY_DESKTOP, else the server process whose
// command line names the display; "" when unknown.
func xServer(display string) string {
	if d, err := vdesk.Current(); err == nil && d.Display() == display && d.Alive() {
		return "Xvfb"
	}
	host, num, ok := strings.Cut(display, ":")
	if !ok || (host != "" && host != "unix") {
		return ""
	}
	num, _, _ = strings.Cut(num, ".")
	arg := []byte(":" + num)
	servers := []string{"Xvfb", "Xorg", "X", "Xwayland", "Xvnc", "Xtigervnc", "Xephyr", "Xnest"}
	var found string
	eachProc(func(pid int, argv [][]byte) bool {
		if len(argv) == 0 || !slices.Contains(servers, filepath.Base(string(argv[0]))) {
			return true
		}
		if slices.ContainsFunc(argv[1:], func(a []byte) bool { return bytes.Equal(a, arg) }) {
			found = filepath.Base(string(argv[0]))
			return false
		}
		return true
	})
	return found
}

// eachProc calls f with every process's pid and argv that can be read,
// until f returns false.
func eachProc(f func(pid int, argv [][]byte) bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue
		}
		if !f(pid, bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0})) {
			return
		}
	}
}

// chromiumHint names the Chromium or Chrome windows on display whose
// process is not a registered app ("" when there are none). The windows
// tell which processes run on this display: Chromium overwrites its
// /proc/PID/environ (like its command line, for the process title), so
// DISPLAY cannot be read there.
func chromiumHint(display string, wins []window, apps []App) string {
	registered := map[int]bool{}
	for _, a := range apps {
		registered[a.PID] = true
	}
	var lost []string
	for _, w := range wins {
		class := strings.ToLower(w.Class)
		if w.PID <= 0 || registered[w.PID] || !(strings.HasPrefix(class, "chromium") || strings.HasPrefix(class, "google-chrome")) {
			continue
		}
		if p := "pid " + strconv.Itoa(w.PID); !slices.Contains(lost, p) {
			lost = append(lost, p)
		}
	}
	if len(lost) == 0 {
		return ""
	}
	return fmt.Sprintf("Chromium has windows on %s but is not registered (%s)", display, strings.Join(lost, ", "))
}
