//go:build linux

package atspi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// D-Bus names of the protocol.
const (
	registryName   = "org.a11y.atspi.Registry"
	rootPath       = dbus.ObjectPath("/org/a11y/atspi/accessible/root")
	nullPath       = dbus.ObjectPath("/org/a11y/atspi/null")
	cachePath      = dbus.ObjectPath("/org/a11y/atspi/cache")
	registryPath   = dbus.ObjectPath("/org/a11y/atspi/registry")
	ifAccessible   = "org.a11y.atspi.Accessible"
	ifAction       = "org.a11y.atspi.Action"
	ifApplication  = "org.a11y.atspi.Application"
	ifCache        = "org.a11y.atspi.Cache"
	ifComponent    = "org.a11y.atspi.Component"
	ifEditableText = "org.a11y.atspi.EditableText"
	ifRegistry     = "org.a11y.atspi.Registry"
	ifSelection    = "org.a11y.atspi.Selection"
	ifText         = "org.a11y.atspi.Text"
	ifValue        = "org.a11y.atspi.Value"
	ifProperties   = "org.freedesktop.DBus.Properties"
)

// ErrNoBus says there is no session bus or accessibility bus to talk to: a
// problem of the environment, not of the request.
var ErrNoBus = errors.New("no accessibility bus")

// ErrDefunct says an object is gone: its window closed, its app exited.
var ErrDefunct = errors.New("the object is gone")

// ErrTimeout says an application did not answer in time.
var ErrTimeout = errors.New("the application did not answer in time")

// Ref names one accessible object: its application's bus name and its path.
type Ref struct {
	Bus  string
	Path dbus.ObjectPath
}

// String is the ref's identity, usable as a map key: "bus:path".
func (r Ref) String() string { return r.Bus + ":" + string(r.Path) }

// IsNull reports whether r names no object (AT-SPI's null reference).
func (r Ref) IsNull() bool { return r.Bus == "" || r.Path == "" || r.Path == nullPath }

// Root is the desktop root, whose children are the applications.
var Root = Ref{Bus: registryName, Path: rootPath}

// Options tune a connection. Zero values take the defaults.
type Options struct {
	// Timeout caps every D-Bus call (default 3 s).
	Timeout time.Duration
	// Logger receives debug messages; nil discards them.
	Logger *slog.Logger
}

// Conn is a connection to the accessibility bus. It is safe for concurrent
// use: godbus multiplexes calls on one connection, which is what lets a
// tree level's calls all be in flight at once.
type Conn struct {
	bus     *dbus.Conn
	timeout time.Duration
	log     *slog.Logger
	addr    string
	peers   peers
}

// Connect finds the accessibility bus through the session bus and connects
// to it. It fails, instead of starting a session bus of its own, when
// DBUS_SESSION_BUS_ADDRESS is not set.
func Connect(ctx context.Context, opt Options) (*Conn, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = 3 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	addr, err := BusAddress(ctx, opt.Timeout)
	if err != nil {
		return nil, err
	}
	bus, err := dial(ctx, addr, opt.Timeout, true)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot connect to the accessibility bus at %s: %v", ErrNoBus, addr, err)
	}
	return &Conn{bus: bus, timeout: opt.Timeout, log: opt.Logger, addr: addr}, nil
}

// dial connects and authenticates within timeout, and says Hello when addr
// is a bus rather than a peer. godbus's handshake has no deadline of its
// own: a bus that takes the connection but never answers would hang it, so
// the connection is closed when the time is up.
func dial(ctx context.Context, addr string, timeout time.Duration, hello bool) (*dbus.Conn, error) {
	// The connection outlives ctx: it is the session's.
	conn, err := dbus.Dial(addr, dbus.WithContext(context.WithoutCancel(ctx)))
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() {
		err := conn.Auth(nil)
		if err == nil && hello {
			err = conn.Hello()
		}
		done <- err
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			conn.Close()
			return nil, err
		}
		return conn, nil
	case <-t.C:
		conn.Close()
		return nil, fmt.Errorf("no answer within %s", timeout)
	case <-ctx.Done():
		conn.Close()
		return nil, ctx.Err()
	}
}

// BusAddress asks the session bus (org.a11y.Bus.GetAddress) where the
// accessibility bus is; the call starts at-spi-bus-launcher when it is not
// running yet.
func BusAddress(ctx context.Context, timeout time.Duration) (string, error) {
	sess := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if sess == "" {
		return "", fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is not set, so there is no session bus (start a virtual desktop with `eval \"$(canopy desktop up)\"`, or run inside a desktop session)", ErrNoBus)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial(ctx, sess, timeout, true)
	if err != nil {
		return "", fmt.Errorf("%w: cannot connect to the session bus at %s: %v", ErrNoBus, sess, err)
	}
	defer conn.Close()
	var addr string
	err = conn.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr)
	if err != nil {
		return "", fmt.Errorf("%w: the session bus has no accessibility bus (org.a11y.Bus): %v (install at-spi2-core)", ErrNoBus, err)
	}
	if addr == "" {
		return "", fmt.Errorf("%w: org.a11y.Bus gave an empty address", ErrNoBus)
	}
	return addr, nil
}

// Address is the accessibility bus's address.
func (c *Conn) Address() string { return c.addr }

// Close ends the connection and the peer-to-peer connections to
// applications; the registry drops its listeners with it.
func (c *Conn) Close() error {
	c.peers.closeAll()
	return c.bus.Close()
}

// Timeout is the cap of one call.
func (c *Conn) Timeout() time.Duration { return c.timeout }

// call makes one method call with the connection's timeout and stores the
// reply in out.
func (c *Conn) call(ctx context.Context, r Ref, method string, out []any, args ...any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	call := c.bus.Object(r.Bus, r.Path).CallWithContext(ctx, method, 0, args...)
	if call.Err != nil {
		return callErr(ctx, method, call.Err)
	}
	if len(out) == 0 {
		return nil
	}
	if err := call.Store(out...); err != nil {
		return fmt.Errorf("%s: unexpected reply: %w", method, err)
	}
	return nil
}

// property reads one property into out.
func (c *Conn) property(ctx context.Context, r Ref, iface, name string, out any) error {
	var v dbus.Variant
	if err := c.call(ctx, r, ifProperties+".Get", []any{&v}, iface, name); err != nil {
		return err
	}
	if err := dbus.Store([]any{v.Value()}, out); err != nil {
		return fmt.Errorf("%s.%s: unexpected value %v: %w", iface, name, v, err)
	}
	return nil
}

// callErr words a failed call: a vanished object or application is
// ErrDefunct, a cap reached is ErrTimeout.
func callErr(ctx context.Context, method string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("%s: %w", shortMethod(method), ErrTimeout)
	}
	var de dbus.Error
	if errors.As(err, &de) || isDBusError(err, &de) {
		switch de.Name {
		case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.UnknownObject",
			"org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Disconnected",
			"org.freedesktop.DBus.Error.NameHasNoOwner":
			return fmt.Errorf("%s: %w", shortMethod(method), ErrDefunct)
		case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface":
			return fmt.Errorf("%s: %w", shortMethod(method), ErrUnsupported)
		}
	}
	return fmt.Errorf("%s: %w", shortMethod(method), err)
}

// ErrUnsupported says an object does not offer an interface or method.
var ErrUnsupported = errors.New("not supported by this object")

func isDBusError(err error, out *dbus.Error) bool {
	var p *dbus.Error
	if errors.As(err, &p) {
		*out = *p
		return true
	}
	return false
}

// shortMethod turns "org.a11y.atspi.Action.DoAction" into "Action.DoAction".
func shortMethod(m string) string {
	parts := strings.Split(m, ".")
	if len(parts) >= 2 {
		return parts[len(parts)-2] + "." + parts[len(parts)-1]
	}
	return m
}
