package vdesk

// What the package declares on every system: its errors, defaults and
// options.

import (
	"errors"
	"log/slog"
)

// ErrEnvironment marks errors about the machine rather than the request:
// Xvfb or dbus-daemon missing, a server that died while starting, or a
// system without virtual desktops yet (ErrUnsupported). The CLI exits with
// code 2 for them.
var ErrEnvironment = errors.New("environment problem")

// ErrNoDesktop means that no desktop is known: $CANOPY_DESKTOP is unset, or
// its directory holds no state file (it was never up, or is down already).
var ErrNoDesktop = errors.New("no virtual desktop")

// ErrUnsupported is what Up and Load fail with on a system without a
// virtual desktop yet: every system but Linux. It wraps ErrEnvironment.
var ErrUnsupported error = unsupportedError{}

// unsupportedError is ErrUnsupported's type: its own message, unwrapping to
// ErrEnvironment.
type unsupportedError struct{}

// Error says what is missing, in the user's words.
func (unsupportedError) Error() string { return "the desktop is not on this system yet (linux only)" }

// Unwrap makes errors.Is(err, ErrEnvironment) hold.
func (unsupportedError) Unwrap() error { return ErrEnvironment }

// Default screen size and the only depth used.
const (
	DefaultWidth  = 1280
	DefaultHeight = 1024
	Depth         = 24
)

// DirVar is the environment variable that names the current desktop's
// state directory; Env sets it and Current reads it.
const DirVar = "CANOPY_DESKTOP"

// Options say what desktop to bring up.
type Options struct {
	// Width and Height are the screen size in pixels; both zero means
	// 1280x1024. The depth is always 24.
	Width, Height int
	// Dir is the state directory. It must not exist or be empty; Down
	// removes it. Empty means a new temporary directory "canopy-desktop-*".
	// Keep it short: unix socket paths inside it are limited to 107 bytes.
	Dir string
	// NoPortals leaves the desktop portals (xdg-desktop-portal and its
	// backends) off the session bus, as on an X session without them:
	// programs then draw their own dialogs (Chromium its GTK Save dialog,
	// not the portal's). By default the bus offers every session service
	// the machine has installed, portals included.
	NoPortals bool
	// Logger receives debug messages; nil discards them.
	Logger *slog.Logger
}
