//go:build linux

package vdesk

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// envError wraps err so that errors.Is(err, ErrEnvironment) holds while the
// message stays the one the user needs.
type envError struct{ err error }

func (e envError) Error() string         { return e.err.Error() }
func (e envError) Unwrap() []error       { return []error{e.err, ErrEnvironment} }
func envErrorf(f string, a ...any) error { return envError{fmt.Errorf(f, a...)} }

// stateFile is the state file's name inside Dir.
const stateFile = "desktop.json"

// Desktop is a running virtual desktop: the handle Up returns, or one read
// back from its state file by Load or Current. Its methods are safe for
// concurrent use.
type Desktop struct {
	st  state
	log *slog.Logger

	mu       sync.Mutex
	children map[int]*child // processes this process started (and reaps)
}

// Dir is the desktop's state directory (also $CANOPY_DESKTOP in Env).
func (d *Desktop) Dir() string { return d.st.Dir }

// Display is the X display, such as ":1".
func (d *Desktop) Display() string { return d.st.Display }

// BusAddress is the session bus address (DBUS_SESSION_BUS_ADDRESS).
func (d *Desktop) BusAddress() string { return d.st.BusAddress }

// Env returns the variables, as "KEY=value", that put a process on this
// desktop: DISPLAY, DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR, HOME,
// XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME, CANOPY_DESKTOP and
// GSK_RENDERER=cairo (GTK4 draws nothing under Xvfb otherwise).
//
// Callers must also remove the variables Unset names from the environment
// they pass on; NO_AT_BRIDGE=1 in particular keeps GTK3 apps off AT-SPI.
// Environ does both.
func (d *Desktop) Env() []string {
	s := d.st
	return []string{
		"DISPLAY=" + s.Display,
		"DBUS_SESSION_BUS_ADDRESS=" + s.BusAddress,
		"XDG_RUNTIME_DIR=" + s.RuntimeDir,
		"HOME=" + s.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(s.Home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(s.Home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(s.Home, ".local", "share"),
		DirVar + "=" + s.Dir,
		"GSK_RENDERER=cairo",
	}
}

// Unset returns the names of variables that must not reach processes on
// this desktop: NO_AT_BRIDGE (hides GTK3 apps from AT-SPI) and
// WAYLAND_DISPLAY (GTK would open windows on the host's Wayland session
// instead of Xvfb).
func (d *Desktop) Unset() []string {
	return []string{"NO_AT_BRIDGE", "WAYLAND_DISPLAY"}
}

// Environ returns the current process's environment with Env applied and
// Unset removed: the environment for an app started on this desktop
// (exec.Cmd.Env).
func (d *Desktop) Environ() []string {
	return mergeEnv(os.Environ(), d.Env(), d.Unset())
}

// mergeEnv returns base without the keys of set and the names in unset,
// followed by set.
func mergeEnv(base, set, unset []string) []string {
	drop := make(map[string]bool, len(set)+len(unset))
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
	}
	for _, k := range unset {
		drop[k] = true
	}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// Apply sets Env's variables and removes Unset's in the current process
// (os.Setenv), for tests and for a server that brings a desktop up
// in-process. The returned func restores the previous values; calling it
// more than once is harmless. Apply is not safe to run concurrently with
// other code that reads or changes the environment.
func (d *Desktop) Apply() (restore func()) {
	type saved struct {
		key, val string
		ok       bool
	}
	var prev []saved
	for _, kv := range d.Env() {
		k, v, _ := strings.Cut(kv, "=")
		old, ok := os.LookupEnv(k)
		prev = append(prev, saved{k, old, ok})
		os.Setenv(k, v)
	}
	for _, k := range d.Unset() {
		old, ok := os.LookupEnv(k)
		prev = append(prev, saved{k, old, ok})
		os.Unsetenv(k)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for i := len(prev) - 1; i >= 0; i-- {
				if p := prev[i]; p.ok {
					os.Setenv(p.key, p.val)
				} else {
					os.Unsetenv(p.key)
				}
			}
		})
	}
}

// Alive reports whether the desktop's Xvfb and dbus-daemon both still run.
func (d *Desktop) Alive() bool {
	return d.st.Xvfb.alive(xvfbName) && d.st.Bus.alive(busName)
}

// Load reads the desktop whose state directory is dir, for a process other
// than the one that brought it up. The error wraps ErrNoDesktop when dir
// holds no state file.
func Load(dir string) (*Desktop, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("desktop directory %s: %w", dir, err)
	}
	st, err := readState(filepath.Join(abs, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s (no %s: never up, or down already): %w", ErrNoDesktop, abs, stateFile, err)
	}
	if err != nil {
		return nil, err
	}
	if st.Dir != abs {
		// The directory was moved or reached through a link; trust where
		// the file is, since that is what Down removes.
		st.Dir = abs
	}
	return &Desktop{st: st, log: slog.New(slog.DiscardHandler)}, nil
}

// Current loads the desktop named by $CANOPY_DESKTOP. The error wraps
// ErrNoDesktop when the variable is unset or names no desktop.
func Current() (*Desktop, error) {
	dir := os.Getenv(DirVar)
	if dir == "" {
		return nil, fmt.Errorf("%w: $%s is not set (start one with: eval \"$(canopy desktop up)\")", ErrNoDesktop, DirVar)
	}
	return Load(dir)
}
