//go:build linux

package vdesk

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Tests fail, never skip, without Xvfb and dbus-daemon: CI installs them
// (apt-get install xvfb dbus at-spi2-core).

// up brings up a desktop for one test; Cleanup downs it.
func up(t *testing.T, opts Options) *Desktop {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := Up(ctx, opts)
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Cleanup(func() { down(t, d) })
	return d
}

func down(t *testing.T, d *Desktop) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.Down(ctx); err != nil {
		t.Errorf("Down: %v", err)
	}
}

// screen connects to display and returns its root screen's size and depth.
func screen(t *testing.T, display string) (w, h, depth int) {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatalf("X display %s does not answer: %v", display, err)
	}
	defer c.Close()
	s := xproto.Setup(c).DefaultScreen(c)
	return int(s.WidthInPixels), int(s.HeightInPixels), int(s.RootDepth)
}

// busNames lists the names on the bus at addr.
func busNames(t *testing.T, addr string) []string {
	t.Helper()
	return listNames(t, addr, "org.freedesktop.DBus.ListNames")
}

// listNames calls a name-listing method of the bus at addr
// (ListNames, ListActivatableNames).
func listNames(t *testing.T, addr, method string) []string {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("session bus %s does not answer: %v", addr, err)
	}
	defer conn.Close()
	var names []string
	if err := conn.BusObject().Call(method, 0).Store(&names); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return names
}

// names returns the program names (argv[0] base) of procs.
func names(procs []proc) []string {
	var out []string
	for _, p := range procs {
		argv0, _, _ := strings.Cut(cmdline(p.PID), " ")
		out = append(out, filepath.Base(argv0))
	}
	return out
}

// a11yInstalled reports whether at-spi2-core's bus service is installed.
func a11yInstalled() bool {
	_, err := os.Stat("/usr/share/dbus-1/services/org.a11y.Bus.service")
	return err == nil
}

// startA11y D-Bus-activates the accessibility bus the way an app or
// canopy's desktop source does, and then the registry daemon on it.
func startA11y(t *testing.T, d *Desktop) {
	t.Helper()
	conn, err := dbus.Connect(d.BusAddress())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var addr string
	if err := conn.Object("org.a11y.Bus", "/org/a11y/bus").Call("org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil {
		t.Fatalf("org.a11y.Bus.GetAddress: %v", err)
	}
	a11y, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("a11y bus %s: %v", addr, err)
	}
	defer a11y.Close()
	call := a11y.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root").
		Call("org.freedesktop.DBus.Properties.Get", 0, "org.a11y.atspi.Accessible", "ChildCount")
	if call.Err != nil {
		t.Fatalf("a11y registry: %v", call.Err)
	}
}

func TestUpDown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "desk")
	ctx, cancel := context.WithCancel(context.Background())
	d, err := Up(ctx, Options{Dir: dir, Width: 800, Height: 600,
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { down(t, d) })
	// The servers must not depend on Up's context.
	cancel()
	time.Sleep(200 * time.Millisecond)
	if !d.Alive() {
		t.Fatal("desktop died when Up's context was cancelled")
	}
	if d.Dir() != dir {
		t.Errorf("Dir = %q, want %q", d.Dir(), dir)
	}
	fi, err := os.Stat(d.st.RuntimeDir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("runtime dir: %v, mode %v, want 0700", err, fi.Mode().Perm())
	}

	if w, h, depth := screen(t, d.Display()); w != 800 || h != 600 || depth != 24 {
		t.Errorf("screen %dx%dx%d, want 800x600x24", w, h, depth)
	}
	if n := busNames(t, d.BusAddress()); !slices.Contains(n, "org.freedesktop.DBus") {
		t.Errorf("bus names %v lack org.freedesktop.DBus", n)
	}

	// An app the user started on the desktop, and the a11y stack the bus
	// activated: Down must stop both.
	app := exec.Command("sleep", "300")
	app.Env = d.Environ()
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	appDone := make(chan error, 1)
	go func() { appDone <- app.Wait() }()
	want := []string{"Xvfb", "dbus-daemon", "sleep"}
	if a11yInstalled() {
		startA11y(t, d)
		want = append(want, "at-spi-bus-launcher", "at-spi2-registryd")
	} else {
		t.Log("at-spi2-core is not installed: not checking the a11y bus (apt-get install at-spi2-core)")
	}
	got := names(d.targets())
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("desktop processes %v lack %s", got, w)
		}
	}

	x, bus := d.st.Xvfb, d.st.Bus
	down(t, d)
	if left := withEnv("XDG_RUNTIME_DIR=" + d.st.RuntimeDir); len(left) > 0 {
		t.Errorf("processes left after Down: %v", names(left))
	}
	if d.Alive() {
		t.Error("Alive after Down")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Dir after Down: %v, want it gone", err)
	}
	select {
	case err := <-appDone:
		if err == nil {
			t.Error("the app exited cleanly, want killed")
		}
	case <-time.After(5 * time.Second):
		t.Error("the app still runs after Down")
	}
	// We started Xvfb and dbus-daemon, so we must have reaped them.
	for _, p := range []proc{x, bus} {
		if _, err := os.Stat("/proc/" + strconv.Itoa(p.PID)); err == nil {
			if st, err := readStat(p.PID); err == nil && st.startTime == p.StartTime {
				t.Errorf("pid %d left behind in state %c", p.PID, st.state)
			}
		}
	}
	// Down twice is fine.
	down(t, d)
}

func TestLoadCurrent(t *testing.T) {
	d := up(t, Options{})
	l, err := Load(d.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Env(), d.Env()) || l.st.Xvfb != d.st.Xvfb || l.st.Bus != d.st.Bus {
		t.Errorf("Load = %+v, want %+v", l.st, d.st)
	}
	if !l.Alive() {
		t.Error("loaded desktop not Alive")
	}

	t.Setenv(DirVar, d.Dir())
	c, err := Current()
	if err != nil {
		t.Fatal(err)
	}
	if c.Display() != d.Display() || c.BusAddress() != d.BusAddress() {
		t.Errorf("Current = %s %s, want %s %s", c.Display(), c.BusAddress(), d.Display(), d.BusAddress())
	}

	t.Setenv(DirVar, "")
	if _, err := Current(); !errors.Is(err, ErrNoDesktop) {
		t.Errorf("Current without $%s: %v, want ErrNoDesktop", DirVar, err)
	}
	if _, err := Load(t.TempDir()); !errors.Is(err, ErrNoDesktop) {
		t.Errorf("Load of an empty dir: %v, want ErrNoDesktop", err)
	}

	// Down through the loaded copy (as `canopy desktop down` does), then
	// through the original: both fine.
	down(t, l)
	if d.Alive() {
		t.Error("desktop alive after Down of its loaded copy")
	}
	if _, err := os.Stat(d.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Dir after Down: %v", err)
	}
	down(t, d)
	if _, err := Load(d.Dir()); !errors.Is(err, ErrNoDesktop) {
		t.Errorf("Load after Down: %v, want ErrNoDesktop", err)
	}
}

func TestTwoDesktops(t *testing.T) {
	var (
		wg   sync.WaitGroup
		desk [2]*Desktop
	)
	for i := range desk {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			d, err := Up(ctx, Options{})
			if err != nil {
				t.Errorf("Up %d: %v", i, err)
				return
			}
			desk[i] = d
			t.Cleanup(func() { down(t, d) })
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	a, b := desk[0], desk[1]
	if a.Display() == b.Display() || a.BusAddress() == b.BusAddress() || a.Dir() == b.Dir() {
		t.Fatalf("two desktops share a display, bus or dir: %s %s %s / %s %s %s",
			a.Display(), a.BusAddress(), a.Dir(), b.Display(), b.BusAddress(), b.Dir())
	}
	down(t, a)
	if !b.Alive() {
		t.Fatal("Down of one desktop stopped the other")
	}
	screen(t, b.Display())
	busNames(t, b.BusAddress())
}

// TestSurvivesExit brings a desktop up in a child process that then exits,
// as `canopy desktop up` does, and downs it from here: a process that is
// not the servers' parent.
func TestSurvivesExit(t *testing.T) {
	if dir := os.Getenv("VDESK_TEST_UP_DIR"); dir != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := Up(ctx, Options{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		return
	}
	dir := filepath.Join(t.TempDir(), "desk")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSurvivesExit$")
	cmd.Env = append(os.Environ(), "VDESK_TEST_UP_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	d, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { down(t, d) })
	if !d.Alive() {
		t.Fatal("desktop died with the process that brought it up")
	}
	screen(t, d.Display())
	if a11yInstalled() {
		startA11y(t, d)
	}
	down(t, d)
	if left := withEnv("XDG_RUNTIME_DIR=" + d.st.RuntimeDir); len(left) > 0 {
		t.Errorf("processes left after Down: %v", names(left))
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Dir after Down: %v, want it gone", err)
	}
}
