//go:build linux

// Package desktoptest runs a package's tests on a virtual desktop (vdesk),
// so that tests of desktop code need no display on the machine:
//
//	func TestMain(m *testing.M) { os.Exit(desktoptest.Main(m)) }
//
// With CANOPY_TEST_DESKTOP=reuse and $DISPLAY and $DBUS_SESSION_BUS_ADDRESS
// pointing at a desktop that answers, the tests run on that one instead
// (faster when iterating, and lets a developer watch). Without Xvfb or
// dbus-daemon the tests are skipped with a notice, except under CI=true,
// where that is a failure.
package desktoptest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"

	"github.com/canopy-dev/canopy/vdesk"
)

// ReuseVar is the variable that, set to "reuse", makes Main run the tests
// on the desktop that $DISPLAY and $DBUS_SESSION_BUS_ADDRESS name.
const ReuseVar = "CANOPY_TEST_DESKTOP"

// Main runs m's tests with the environment of a virtual desktop (see the
// package documentation) and returns the exit code for os.Exit. A desktop
// it brought up is stopped afterwards, also on SIGINT or SIGTERM.
func Main(m *testing.M) int {
	defer freshSettings()()
	if os.Getenv(ReuseVar) == "reuse" {
		err := Live(os.Getenv("DISPLAY"), os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
		if err == nil {
			return m.Run()
		}
		fmt.Fprintf(os.Stderr, "desktoptest: %s=reuse, but %v; starting a virtual desktop\n", ReuseVar, err)
	}
	if err := vdesk.Check(); err != nil {
		if os.Getenv("CI") == "true" {
			fmt.Fprintln(os.Stderr, "desktoptest:", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "desktoptest: SKIP all tests of this package: %v\n", err)
		return 0
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	d, err := vdesk.Up(ctx, vdesk.Options{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "desktoptest: bring up a virtual desktop:", err)
		return 1
	}
	down := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return d.Down(ctx)
	}

	// An interrupted test run would otherwise leave the desktop running:
	// its servers are in their own session.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	stopWatch := make(chan struct{})
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		select {
		case sig := <-sigs:
			fmt.Fprintf(os.Stderr, "desktoptest: %v: stopping the virtual desktop\n", sig)
			if err := down(); err != nil {
				fmt.Fprintln(os.Stderr, "desktoptest:", err)
			}
			os.Exit(1)
		case <-stopWatch:
		}
	}()

	restore := d.Apply()
	code := m.Run()
	restore()

	signal.Stop(sigs)
	close(stopWatch)
	<-watchDone
	if err := down(); err != nil {
		fmt.Fprintln(os.Stderr, "desktoptest: stop the virtual desktop:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// settingsVar and its value keep the GSettings of the apps the tests
// start in memory: nothing one test's app saves (mousepad's "the previous
// session did not end normally", after an earlier test's session stopped
// it) reaches the next test's — with -count=N, the next run's.
const settingsVar, settingsValue = "GSETTINGS_BACKEND", "memory"

// freshSettings sets settingsVar for the process, and returns what
// restores it.
func freshSettings() (restore func()) {
	old, had := os.LookupEnv(settingsVar)
	os.Setenv(settingsVar, settingsValue)
	return func() {
		if had {
			os.Setenv(settingsVar, old)
		} else {
			os.Unsetenv(settingsVar)
		}
	}
}

// Live reports, as an error, why display and busAddress are not a desktop
// that answers: the X server must accept a connection and the bus a call,
// each within 5 seconds.
func Live(display, busAddress string) error {
	if display == "" {
		return errors.New("$DISPLAY is not set")
	}
	if busAddress == "" {
		return errors.New("$DBUS_SESSION_BUS_ADDRESS is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	xerr := make(chan error, 1)
	go func() {
		c, err := xgb.NewConnDisplay(display)
		if err == nil {
			c.Close()
		}
		xerr <- err
	}()
	select {
	case err := <-xerr:
		if err != nil {
			return fmt.Errorf("the X display %s does not answer: %w", display, err)
		}
	case <-ctx.Done():
		return fmt.Errorf("the X display %s does not answer: %w", display, ctx.Err())
	}

	conn, err := dbus.Connect(busAddress, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("session bus %s does not answer: %w", busAddress, err)
	}
	defer conn.Close()
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
		return fmt.Errorf("session bus %s does not answer: %w", busAddress, err)
	}
	return nil
}

// Mode is a kind of desktop a test runs on: with or without the desktop
// portals on its session bus.
type Mode struct {
	// Name names the mode in subtest names: "portal" or "noportal".
	Name string
	// NoPortals leaves the portals off the bus (vdesk.Options.NoPortals).
	NoPortals bool
}

// Modes are both kinds of desktop, for tests that must pass on each: a
// desktop with xdg-desktop-portal (GNOME, KDE, and a fresh Debian machine
// with zenity installed), where programs' file dialogs are the portal's,
// and one without, where each program draws its own.
var Modes = []Mode{{Name: "portal"}, {Name: "noportal", NoPortals: true}}

// Use brings up a virtual desktop of mode m for one test and points the
// process's environment at it (t.Setenv, so the test must not be
// parallel); the previous environment comes back and the desktop goes
// down when the test ends. A test of the portal mode fails under CI=true
// when the machine lacks the portal (CI installs it), and is skipped
// elsewhere.
func Use(t *testing.T, m Mode) *vdesk.Desktop {
	t.Helper()
	if !m.NoPortals && !vdesk.PortalsInstalled() {
		const msg = "xdg-desktop-portal is not installed (apt-get install xdg-desktop-portal-gtk)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := vdesk.Up(ctx, vdesk.Options{NoPortals: m.NoPortals})
	if err != nil {
		t.Fatalf("bring up a %s desktop: %v", m.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := d.Down(ctx); err != nil {
			t.Errorf("stop the %s desktop: %v", m.Name, err)
		}
	})
	for _, kv := range d.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv(settingsVar, settingsValue)
	for _, k := range d.Unset() {
		t.Setenv(k, "") // restored at the end of the test
		os.Unsetenv(k)
	}
	return d
}
