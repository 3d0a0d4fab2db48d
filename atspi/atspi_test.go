//go:build linux

package atspi

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/canopy-dev/canopy/internal/desktoptest"
)

func TestMain(m *testing.M) { os.Exit(desktoptest.Main(m)) }

// TestDecodeEvent reads recorded signal bodies (siiva{sv}) as events.
func TestDecodeEvent(t *testing.T) {
	child := Ref{Bus: ":1.7", Path: "/org/a11y/atspi/accessible/12"}
	for _, c := range []struct {
		sig  dbus.Signal
		want Event
	}{
		{dbus.Signal{Sender: ":1.7", Path: "/org/a11y/atspi/accessible/3", Name: "org.a11y.atspi.Event.Object.StateChanged",
			Body: []any{"checked", int32(1), int32(0), dbus.MakeVariant(int32(0)), map[string]dbus.Variant{}}},
			Event{Type: "object:state-changed:checked", Source: Ref{":1.7", "/org/a11y/atspi/accessible/3"}, Detail1: 1, Data: int32(0)}},
		{dbus.Signal{Sender: ":1.7", Path: "/org/a11y/atspi/accessible/3", Name: "org.a11y.atspi.Event.Object.ChildrenChanged",
			Body: []any{"add", int32(2), int32(0), dbus.MakeVariant([]any{child.Bus, child.Path}), map[string]dbus.Variant{}}},
			Event{Type: "object:children-changed:add", Source: Ref{":1.7", "/org/a11y/atspi/accessible/3"}, Detail1: 2, Data: child}},
		{dbus.Signal{Sender: ":1.9", Path: "/org/a11y/atspi/accessible/1", Name: "org.a11y.atspi.Event.Window.Create",
			Body: []any{"", int32(0), int32(0), dbus.MakeVariant("Save File"), map[string]dbus.Variant{}}},
			Event{Type: "window:create", Source: Ref{":1.9", "/org/a11y/atspi/accessible/1"}, Data: "Save File"}},
	} {
		got, ok := decodeEvent(&c.sig)
		if !ok {
			t.Fatalf("%s: not decoded", c.sig.Name)
		}
		if got.Type != c.want.Type || got.Source != c.want.Source || got.Detail1 != c.want.Detail1 || got.Data != c.want.Data {
			t.Errorf("%s: got %+v, want %+v", c.sig.Name, got, c.want)
		}
	}
	if _, ok := decodeEvent(&dbus.Signal{Name: "org.freedesktop.DBus.NameAcquired", Body: []any{"x"}}); ok {
		t.Error("a foreign signal decoded as an event")
	}
	e := Event{Type: "object:state-changed:focused"}
	if e.Kind() != "object:state-changed" || e.Detail() != "focused" {
		t.Errorf("Kind/Detail = %q/%q", e.Kind(), e.Detail())
	}
}

// TestRolesAndStates: numbers, not names; two words make one set.
func TestRolesAndStates(t *testing.T) {
	if RolePushButton.String() != "push button" || RoleText.String() != "text" || Role(129).String() != "push button menu" || Role(999).String() != "role 999" {
		t.Error("role names")
	}
	s := statesOf([]uint32{1<<uint(StateFocused) | 1<<uint(StateShowing), 1 << (uint(StateReadOnly) - 32)})
	if !s.Has(StateFocused) || !s.Has(StateShowing) || !s.Has(StateReadOnly) || s.Has(StateChecked) {
		t.Errorf("states %b", s)
	}
}

// TestReadZenity reads a real GTK 3 dialog from its cache and walks it.
func TestReadZenity(t *testing.T) {
	ctx := context.Background()
	c, err := Connect(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	app, events, cmd := startZenity(t, c, "Proceed?")

	tr, err := c.ReadApp(ctx, app, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Cached {
		t.Error("GTK 3's cache was not used (a listener was registered first)")
	}
	var names []string
	for _, it := range tr.Items {
		if it.Role == RolePushButton {
			names = append(names, it.Name)
		}
	}
	if strings.Join(sorted(names), ",") != "No,Yes" {
		t.Errorf("push buttons %v, want No and Yes", names)
	}
	// A walk without the cache reads the same objects.
	walked := &Tree{Root: app, Items: map[Ref]*Item{}}
	root, err := c.ReadItem(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	walked.Items[app] = root
	if err := c.complete(ctx, walked, ReadOptions{Limit: 1000}); err != nil {
		t.Fatal(err)
	}
	if len(walked.Items) != len(tr.Items) {
		t.Errorf("walk read %d objects, cache %d", len(walked.Items), len(tr.Items))
	}
	// A closed app's objects are defunct.
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err = c.ReadItem(ctx, app); err != nil {
			break
		}
		<-events
	}
	if !errors.Is(err, ErrDefunct) {
		t.Errorf("reading a closed app: %v, want ErrDefunct", err)
	}
}

func sorted(xs []string) []string {
	out := append([]string{}, xs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// startZenity listens on c (so the app builds its Cache), starts a zenity
// question dialog titled title and waits until it registers. The dialog
// is stopped when the test ends.
func startZenity(t *testing.T, c *Conn, title string) (Ref, <-chan Event, *exec.Cmd) {
	t.Helper()
	l, err := c.Listen(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	events, unsub := l.Subscribe()
	t.Cleanup(unsub)
	cmd := exec.Command("zenity", "--question", "--title="+title, "--text=Go on?")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return waitApp(t, c, events, "zenity"), events, cmd
}

// waitApp waits, on registry events, until an app named name registers.
func waitApp(t *testing.T, c *Conn, events <-chan Event, name string) Ref {
	t.Helper()
	ctx := context.Background()
	deadline := time.After(15 * time.Second)
	for {
		apps, _ := c.Apps(ctx)
		for _, a := range apps {
			if n, _ := c.Name(ctx, a); n == name {
				if kids, _ := c.Children(ctx, a); len(kids) > 0 {
					return a
				}
			}
		}
		select {
		case <-events:
		case <-deadline:
			t.Fatalf("%s never registered", name)
		}
	}
}

// TestNoAnswer: a method call an application never answers fails with
// ErrTimeout at the cap, and the connection stays usable.
func TestNoAnswer(t *testing.T) {
	ctx := context.Background()
	c, err := Connect(ctx, Options{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A peer on the accessibility bus that takes calls and never replies.
	mute, err := dbus.Connect(c.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	mute.Eavesdrop(make(chan *dbus.Message, 16)) // swallow incoming calls
	start := time.Now()
	_, err = c.Children(ctx, Ref{Bus: mute.Names()[0], Path: "/org/a11y/atspi/accessible/root"})
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("got %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s, cap 300ms", d)
	}
	if _, err := c.Apps(ctx); err != nil {
		t.Errorf("connection unusable after a timeout: %v", err)
	}
}

// TestSilentBus: a bus socket that accepts and never speaks fails Connect
// at the cap instead of hanging.
func TestSilentBus(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "bus")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+sock)
	start := time.Now()
	_, err = Connect(context.Background(), Options{Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrNoBus) {
		t.Errorf("got %v, want ErrNoBus", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if _, err := Connect(context.Background(), Options{}); !errors.Is(err, ErrNoBus) || !strings.Contains(err.Error(), "canopy desktop up") {
		t.Errorf("no session bus: %v", err)
	}
}
