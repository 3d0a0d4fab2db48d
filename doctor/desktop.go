//go:build linux

package doctor

// The desktop's checks: the X display, the session bus, the accessibility
// bus and its applications, the virtual desktop, the tools it needs and
// the variables that hide applications.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/vdesk"
)

// fixDesktop is the fix for a missing display or session bus.
const fixDesktop = `eval "$(canopy desktop up)"`

// checkDesktops runs the desktop's checks: the display and the bus chain
// (session bus, accessibility bus, apps) concurrently, then the virtual
// desktop, its tools and NO_AT_BRIDGE.
func checkDesktops(ctx context.Context, timeout time.Duration) desktopReport {
	var (
		wg                          sync.WaitGroup
		display, sess, a11y, apps   Check
		appList                     []App
		displayName, sessionAddress = os.Getenv("DISPLAY"), os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	)
	var wins []window
	wg.Go(func() { display, wins = checkDisplay(ctx, displayName, timeout) })
	wg.Go(func() {
		sess = checkSession(ctx, sessionAddress, timeout)
		if !sess.OK {
			a11y = skipped(NameA11yBus, "needs the session bus")
			apps = skipped(NameApps, "needs the accessibility bus")
			return
		}
		var conn *atspi.Conn
		a11y, conn = checkA11y(ctx, timeout)
		if conn == nil {
			apps = skipped(NameApps, "needs the accessibility bus")
			return
		}
		defer conn.Close()
		apps, appList = checkApps(ctx, conn, timeout)
	})
	wg.Wait()
	if apps.OK {
		if hint := chromiumHint(displayName, wins, appList); hint != "" {
			apps.Warn = true
			apps.Detail += "; " + hint
			apps.Fix = "start Chromium with ACCESSIBILITY_ENABLED=1 in its environment (or GNOME_ACCESSIBILITY=1): without it, it does not register"
		}
	}
	return desktopReport{
		before: []Check{display, sess, a11y, apps},
		after: []Check{
			checkDesktop(displayName, sessionAddress),
			checkTools(display.OK && sess.OK, a11y.OK),
			checkAtBridge(),
		},
		apps: appList,
	}
}

// within runs f with a deadline of d and returns when f does or the
// deadline passes, whichever is first: f may be stuck in a call that
// ignores its context. A value f returns after the deadline is handed to
// discard (to close a connection).
func within[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error), discard func(T)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.err == nil && discard != nil {
				discard(r.v)
			}
		}()
		var zero T
		if context.Cause(ctx) == context.DeadlineExceeded {
			return zero, fmt.Errorf("no answer within %v", d)
		}
		return zero, context.Cause(ctx)
	}
}

// checkSession connects to the session bus and pings it.
func checkSession(ctx context.Context, addr string, timeout time.Duration) Check {
	c := Check{Name: NameSessionBus}
	if addr == "" {
		c.Detail = "DBUS_SESSION_BUS_ADDRESS is not set"
		c.Fix = fixDesktop + " (or run inside a desktop session)"
		return c
	}
	portal, err := within(ctx, timeout, func(ctx context.Context) (bool, error) {
		conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
		if err != nil {
			return false, err
		}
		defer conn.Close()
		if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
			return false, err
		}
		return hasPortal(ctx, conn), nil
	}, nil)
	if err != nil {
		c.Detail = fmt.Sprintf("%s: %v", addr, err)
		c.Fix = "the bus is gone or hung (a stale shell?): " + fixDesktop
		return c
	}
	c.OK = true
	c.Detail = addr + "; " + portalNote[portal]
	return c
}

// portalNote says, by whether the desktop portal is on the session bus,
// who draws programs' file dialogs (Chromium's Save dialog among them).
var portalNote = map[bool]string{
	true:  "file dialogs are the desktop portal's (xdg-desktop-portal)",
	false: "no desktop portal: programs draw their own file dialogs",
}

// hasPortal reports whether the bus runs or can start the desktop portal.
func hasPortal(ctx context.Context, conn *dbus.Conn) bool {
	const name = "org.freedesktop.portal.Desktop"
	var names []string
	for _, method := range []string{"org.freedesktop.DBus.ListNames", "org.freedesktop.DBus.ListActivatableNames"} {
		if conn.BusObject().CallWithContext(ctx, method, 0).Store(&names) == nil && slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// checkA11y finds the accessibility bus through the session bus, connects
// to it and asks the registry for its applications. The connection is
// returned for checkApps when the check passed.
func checkA11y(ctx context.Context, timeout time.Duration) (Check, *atspi.Conn) {
	c := Check{Name: NameA11yBus}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	addr, err := within(ctx, timeout, func(ctx context.Context) (string, error) {
		return atspi.BusAddress(ctx, timeout)
	}, nil)
	if err != nil {
		c.Detail = fmt.Sprintf("org.a11y.Bus.GetAddress on the session bus: %v", err)
		c.Fix = "apt-get install at-spi2-core (its at-spi-bus-launcher is started by the session bus)"
		return c, nil
	}
	conn, err := within(ctx, timeout, func(ctx context.Context) (*atspi.Conn, error) {
		return atspi.Connect(ctx, atspi.Options{Timeout: timeout})
	}, func(c *atspi.Conn) { c.Close() })
	if err != nil {
		c.Detail = fmt.Sprintf("%s: cannot connect: %v", addr, err)
		c.Fix = "restart the desktop (canopy desktop down; " + fixDesktop + ")"
		return c, nil
	}
	if _, err := conn.Apps(ctx); err != nil {
		conn.Close()
		c.Detail = fmt.Sprintf("%s: the registry (org.a11y.atspi.Registry) does not answer: %v", addr, err)
		c.Fix = "apt-get install at-spi2-core (at-spi2-registryd), then restart the desktop"
		return c, nil
	}
	c.OK = true
	c.Detail = conn.Address() + " (registry answers)"
	return c, conn
}

// checkApps lists the registered applications with their pids and
// toolkits.
func checkApps(ctx context.Context, conn *atspi.Conn, timeout time.Duration) (Check, []App) {
	c := Check{Name: NameApps}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	refs, err := conn.Apps(ctx)
	if err != nil {
		c.Detail = fmt.Sprintf("the registry did not list them: %v", err)
		c.Fix = "restart the desktop (canopy desktop down; " + fixDesktop + ")"
		return c, nil
	}
	apps := make([]App, len(refs))
	var wg sync.WaitGroup
	for i, ref := range refs {
		wg.Go(func() { apps[i] = describeApp(ctx, conn, ref) })
	}
	wg.Wait()
	c.OK = true
	if len(apps) == 0 {
		c.Detail = "none registered yet"
	} else {
		names := make([]string, len(apps))
		for i, a := range apps {
			names[i] = a.String()
		}
		c.Detail = fmt.Sprintf("%d registered: %s", len(apps), strings.Join(names, ", "))
	}
	return c, apps
}

// describeApp reads an app's name, pid and toolkit; what does not answer
// is noted in Error.
func describeApp(ctx context.Context, conn *atspi.Conn, ref atspi.Ref) App {
	a := App{Bus: ref.Bus}
	var errs []string
	name, err := conn.Name(ctx, ref)
	if err != nil {
		errs = append(errs, "name: "+err.Error())
	}
	a.Name = clean(name)
	if a.PID, err = conn.AppPID(ctx, ref.Bus); err != nil {
		errs = append(errs, "pid: "+err.Error())
	}
	if tk, v, err := conn.Toolkit(ctx, ref); err == nil {
		a.Toolkit, a.Version = clean(tk), clean(v)
	} else if !errors.Is(err, atspi.ErrUnsupported) {
		errs = append(errs, "toolkit: "+err.Error())
	}
	a.Error = strings.Join(errs, "; ")
	return a
}

// checkDesktop reports the virtual desktop $CANOPY_DESKTOP names, if any,
// and whether this environment's display and bus are its.
func checkDesktop(display, busAddress string) Check {
	c := Check{Name: NameDesktop}
	dir := os.Getenv(vdesk.DirVar)
	if dir == "" {
		c.OK = true
		c.Detail = "none ($" + vdesk.DirVar + " is not set)"
		return c
	}
	d, err := vdesk.Load(dir)
	if errors.Is(err, vdesk.ErrNoDesktop) {
		c.Detail = fmt.Sprintf("$%s=%s names no running desktop (down already?)", vdesk.DirVar, dir)
		c.Fix = "this shell is stale: " + fixDesktop + ", or unset " + vdesk.DirVar + " DISPLAY DBUS_SESSION_BUS_ADDRESS"
		return c
	}
	if err != nil {
		c.Detail = fmt.Sprintf("$%s=%s: %v", vdesk.DirVar, dir, err)
		c.Fix = "canopy desktop down --dir " + dir + "; " + fixDesktop
		return c
	}
	if !d.Alive() {
		c.Detail = fmt.Sprintf("%s: its Xvfb or dbus-daemon no longer runs", d.Dir())
		c.Fix = "canopy desktop down; " + fixDesktop
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%s (Xvfb %s)", d.Dir(), d.Display())
	var off []string
	if display != d.Display() {
		off = append(off, fmt.Sprintf("DISPLAY=%s", display))
	}
	if busAddress != d.BusAddress() {
		off = append(off, "DBUS_SESSION_BUS_ADDRESS")
	}
	if len(off) > 0 {
		c.Warn = true
		c.Detail += "; but this environment's " + strings.Join(off, " and ") + " is not the desktop's"
		c.Fix = `eval "$(canopy desktop env)"`
	}
	return c
}

// launcherPaths are where distributions install at-spi-bus-launcher.
var launcherPaths = []string{
	"/usr/libexec/at-spi-bus-launcher",
	"/usr/lib/at-spi2-core/at-spi-bus-launcher",
	"/usr/lib/at-spi-bus-launcher",
	"/usr/lib/at-spi2/at-spi-bus-launcher",
}

// checkTools looks for what `canopy desktop up` needs (Xvfb, dbus-daemon)
// and for at-spi-bus-launcher. Missing ones fail only when they are needed
// now: when there is no working display and session bus (the fix is then
// `canopy desktop up`), or no accessibility bus.
func checkTools(haveDesktop, haveA11y bool) Check {
	c := Check{Name: NameDesktopTools, OK: true}
	var found, missing, pkgs []string
	if err := vdesk.Check(); err != nil {
		for _, p := range []struct{ bin, pkg string }{{"Xvfb", "xvfb"}, {"dbus-daemon", "dbus"}} {
			if _, err := exec.LookPath(p.bin); err != nil {
				missing, pkgs = append(missing, p.bin), append(pkgs, p.pkg)
			} else {
				found = append(found, p.bin)
			}
		}
		if len(missing) == 0 { // Check failed for a reason of its own
			missing = append(missing, err.Error())
		}
		if !haveDesktop {
			c.OK = false
		}
	} else {
		found = append(found, "Xvfb", "dbus-daemon")
	}
	if slices.ContainsFunc(launcherPaths, isFile) {
		found = append(found, "at-spi-bus-launcher")
	} else if !haveA11y {
		missing, pkgs = append(missing, "at-spi-bus-launcher"), append(pkgs, "at-spi2-core")
	}
	c.Detail = strings.Join(found, ", ") + " found"
	if len(found) == 0 {
		c.Detail = ""
	}
	if len(missing) > 0 {
		c.Detail = strings.TrimPrefix(c.Detail+"; missing: "+strings.Join(missing, ", "), "; ")
		c.Warn = true
		if len(pkgs) > 0 {
			c.Fix = "apt-get install " + strings.Join(pkgs, " ")
		}
	}
	return c
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// checkAtBridge warns about NO_AT_BRIDGE, which keeps GTK 3 apps started
// from this environment off AT-SPI.
func checkAtBridge() Check {
	c := Check{Name: NameAtBridge, OK: true, Detail: "NO_AT_BRIDGE is not set (GTK apps register)"}
	if v, ok := os.LookupEnv("NO_AT_BRIDGE"); ok {
		c.Warn = true
		c.Detail = fmt.Sprintf("NO_AT_BRIDGE=%s is set: GTK 3 apps started from this environment will not register with AT-SPI", v)
		c.Fix = "unset NO_AT_BRIDGE (canopy desktop up's exports do)"
	}
	return c
}
