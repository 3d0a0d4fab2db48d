//go:build !linux

package desktop

// The desktop on systems other than Linux: not there yet. Open fails with
// ErrUnsupported. Desktop and its methods are here only so that the
// packages built on every system (workspace, and through it canopy and
// every surface) compile; no Desktop is ever opened, and the methods answer
// as a desktop with nothing on it. A Windows (UI Automation) or macOS (AX)
// source replaces this file for its system: see docs/sources.md.

import (
	"context"
	"fmt"
	"runtime"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// Desktop is the desktop source, which this system does not have yet.
type Desktop struct{}

// Open fails on this system with an error wrapping ErrUnsupported (and so
// ErrEnvironment): canopy reads only the Linux desktop so far.
func Open(ctx context.Context, opt Options) (*Desktop, error) {
	return nil, unsupported()
}

// unsupported says why there is no desktop here and what works instead.
func unsupported() error {
	return fmt.Errorf("%w: canopy reads the desktop through AT-SPI and X11, which %s does not have; without --desktop, canopy drives the browser alone",
		ErrUnsupported, runtime.GOOS)
}

// Close does nothing: there is nothing open.
func (d *Desktop) Close() error { return nil }

// Refs returns nil: there is no desktop to keep refs for.
func (d *Desktop) Refs() *tree.Refs { return nil }

// Snapshot fails with ErrUnsupported.
func (d *Desktop) Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error) {
	return nil, unsupported()
}

// Watch fails with ErrUnsupported.
func (d *Desktop) Watch(ctx context.Context) (session.Watcher, error) {
	return nil, unsupported()
}

// Do fails with ErrUnsupported.
func (d *Desktop) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (session.Output, error) {
	return session.Output{}, unsupported()
}

// Has reports false: no node is the desktop's.
func (d *Desktop) Has(n *tree.Node) bool { return false }

// IsWebDocument reports false: there are no desktop windows.
func (d *Desktop) IsWebDocument(n *tree.Node) bool { return false }

// WebDialog reports false: there are no desktop windows.
func (d *Desktop) WebDialog(ctx context.Context, n *tree.Node) (uri string, ok bool) {
	return "", false
}

// AppOf returns "": there are no desktop applications.
func (d *Desktop) AppOf(ctx context.Context, pid int) string { return "" }
