//go:build !linux

package vdesk

// Virtual desktops on systems other than Linux: not there yet. Up and Load
// fail with ErrUnsupported. Desktop and its methods are here only so that
// the CLI, which builds on every system, compiles; no Desktop is ever
// made, and the methods answer as a desktop that does not run.

import (
	"context"
	"fmt"
	"runtime"
)

// Desktop is a running virtual desktop, which this system cannot run yet.
type Desktop struct{}

// Up fails on this system with an error wrapping ErrUnsupported (and so
// ErrEnvironment).
func Up(ctx context.Context, opts Options) (*Desktop, error) {
	return nil, unsupported()
}

// Load fails on this system with an error wrapping ErrUnsupported (and so
// ErrEnvironment).
func Load(dir string) (*Desktop, error) {
	return nil, unsupported()
}

// unsupported says why there is no virtual desktop here and what works
// instead.
func unsupported() error {
	return fmt.Errorf("%w: a virtual desktop is an Xvfb X server with a D-Bus session bus, which %s does not have; without --desktop, canopy drives the browser alone",
		ErrUnsupported, runtime.GOOS)
}

// Dir returns "": there is no state directory.
func (d *Desktop) Dir() string { return "" }

// Display returns "": there is no X display.
func (d *Desktop) Display() string { return "" }

// Env returns nil: there is no desktop to put a process on.
func (d *Desktop) Env() []string { return nil }

// Unset returns nil.
func (d *Desktop) Unset() []string { return nil }

// Apply changes nothing; the returned func does nothing either.
func (d *Desktop) Apply() (restore func()) { return func() {} }

// Alive reports false: the desktop does not run.
func (d *Desktop) Alive() bool { return false }

// Down does nothing: nothing runs.
func (d *Desktop) Down(ctx context.Context) error { return nil }
