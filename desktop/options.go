package desktop

// What the package declares on every system: its errors and its options.

import (
	"errors"
	"log/slog"
	"time"

	"github.com/canopy-dev/canopy/tree"
)

// ErrEnvironment marks a problem of the machine rather than of the request:
// no display, no session bus, no accessibility bus, or a system canopy
// cannot read the desktop of yet (ErrUnsupported).
var ErrEnvironment = errors.New("desktop environment problem")

// ErrUnsupported is what Open fails with on a system whose desktop canopy
// cannot read yet: every system but Linux. It wraps ErrEnvironment, so the
// CLI exits with its environment code.
var ErrUnsupported error = unsupportedError{}

// unsupportedError is ErrUnsupported's type: its own message, unwrapping to
// ErrEnvironment.
type unsupportedError struct{}

// Error says what is missing, in the user's words.
func (unsupportedError) Error() string { return "the desktop is not on this system yet (linux only)" }

// Unwrap makes errors.Is(err, ErrEnvironment) hold.
func (unsupportedError) Unwrap() error { return ErrEnvironment }

// Options tune a Desktop. Zero values take the defaults.
type Options struct {
	// Timeout caps every AT-SPI call (default 3 s).
	Timeout time.Duration
	// Logger receives debug messages; nil discards them.
	Logger *slog.Logger
	// Refs is the ref table to use; nil makes one. Share one with a browser
	// source when both are in one tree.
	Refs *tree.Refs
	// AppTimeout caps how long open_app waits for the new app's window
	// (default OpenAppTimeout).
	AppTimeout time.Duration
	// SkipWeb leaves web documents' content out (their document node
	// stays): the browser source reads pages over CDP, faster and richer
	// than Chromium's AT-SPI tree of them, which its Cache never holds.
	SkipWeb bool
}
