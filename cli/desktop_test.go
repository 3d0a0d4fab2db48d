//go:build linux

package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/vdesk"
	"github.com/spf13/cobra"
)

// runDesktop runs `canopy desktop ARGS` through the cobra command alone.
func runDesktop(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = runCmd(newDesktopCmd(&out, &errb), &out, &errb, args...)
	return out.String(), errb.String(), err
}

// runCmd runs one cobra command with args, its output into out and errb,
// within a minute.
func runCmd(cmd *cobra.Command, out, errb *bytes.Buffer, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return cmd.ExecuteContext(ctx)
}

// shellVar evals exports in sh and prints a variable, to check that the
// output is valid shell.
func shellVar(t *testing.T, exports, name string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `eval "$1"; printf %s "${`+name+`-UNSET}"`, "sh", exports).Output()
	if err != nil {
		t.Fatalf("sh eval: %v", err)
	}
	return string(out)
}

func TestDesktopUpEnvDown(t *testing.T) {
	t.Setenv(vdesk.DirVar, "")
	t.Setenv("NO_AT_BRIDGE", "1")
	// A quote and a space in the path exercise shell and D-Bus quoting.
	dir := filepath.Join(t.TempDir(), "it's a desk")
	up, stderr, err := runDesktop(t, "up", "--size", "640x480", "--dir", dir)
	if err != nil {
		t.Fatalf("up: %v\n%s", err, stderr)
	}
	t.Cleanup(func() { runDesktop(t, "down", "--dir", dir) })
	if !strings.Contains(stderr, "canopy desktop down --dir") {
		t.Errorf("up's stderr %q does not say how to stop it", stderr)
	}
	for name, want := range map[string]string{
		vdesk.DirVar:   dir,
		"GSK_RENDERER": "cairo",
		"HOME":         filepath.Join(dir, "home"),
		"NO_AT_BRIDGE": "UNSET",
	} {
		if got := shellVar(t, up, name); got != want {
			t.Errorf("after eval of up: %s = %q, want %q\n%s", name, got, want, up)
		}
	}
	display := shellVar(t, up, "DISPLAY")
	if !strings.HasPrefix(display, ":") {
		t.Errorf("DISPLAY = %q", display)
	}
	if out, err := exec.Command("xdpyinfo", "-display", display).CombinedOutput(); err != nil {
		t.Errorf("xdpyinfo -display %s: %v\n%s", display, err, out)
	} else if !strings.Contains(string(out), "640x480 pixels") {
		t.Errorf("xdpyinfo does not show 640x480:\n%s", out)
	}
	bus := shellVar(t, up, "DBUS_SESSION_BUS_ADDRESS")
	if out, err := exec.Command("dbus-send", "--bus="+bus, "--print-reply", "--dest=org.freedesktop.DBus",
		"/", "org.freedesktop.DBus.ListNames").CombinedOutput(); err != nil {
		t.Errorf("dbus-send --bus=%s: %v\n%s", bus, err, out)
	}

	env, _, err := runDesktop(t, "env", "--dir", dir)
	if err != nil || env != up {
		t.Errorf("env --dir = %q, %v; want up's output %q", env, err, up)
	}
	t.Setenv(vdesk.DirVar, dir)
	if env, _, err := runDesktop(t, "env"); err != nil || env != up {
		t.Errorf("env with $%s = %q, %v; want up's output", vdesk.DirVar, env, err)
	}

	if _, stderr, err := runDesktop(t, "down"); err != nil {
		t.Fatalf("down: %v\n%s", err, stderr)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dir after down: %v, want it gone", err)
	}
	if _, stderr, err := runDesktop(t, "down"); err != nil || !strings.Contains(stderr, "nothing to stop") {
		t.Errorf("second down: %v, stderr %q; want a note and no error", err, stderr)
	}
	if _, _, err := runDesktop(t, "env"); !errors.Is(err, vdesk.ErrNoDesktop) {
		t.Errorf("env after down: %v, want ErrNoDesktop", err)
	}
}

// TestDesktopUpNoPortals: --no-portals leaves the desktop portals off the
// bus, and the bus still starts the rest (it answers at all).
func TestDesktopUpNoPortals(t *testing.T) {
	t.Setenv(vdesk.DirVar, "")
	dir := filepath.Join(t.TempDir(), "d")
	up, stderr, err := runDesktop(t, "up", "--no-portals", "--dir", dir)
	if err != nil {
		t.Fatalf("up --no-portals: %v\n%s", err, stderr)
	}
	t.Cleanup(func() { runDesktop(t, "down", "--dir", dir) })
	bus := shellVar(t, up, "DBUS_SESSION_BUS_ADDRESS")
	out, err := exec.Command("dbus-send", "--bus="+bus, "--print-reply", "--dest=org.freedesktop.DBus",
		"/", "org.freedesktop.DBus.ListActivatableNames").CombinedOutput()
	if err != nil {
		t.Fatalf("dbus-send --bus=%s: %v\n%s", bus, err, out)
	}
	if strings.Contains(string(out), "portal") {
		t.Errorf("the bus of up --no-portals can start a portal:\n%s", out)
	}
}

func TestDesktopErrors(t *testing.T) {
	t.Setenv(vdesk.DirVar, "")
	for _, tc := range []struct {
		args []string
		want string
		is   error
	}{
		{[]string{"down"}, "give --dir", vdesk.ErrNoDesktop},
		{[]string{"env"}, "give --dir", vdesk.ErrNoDesktop},
		{[]string{"up", "--size", "1280"}, "WIDTHxHEIGHT", nil},
		{[]string{"up", "--size", "0x10"}, "WIDTHxHEIGHT", nil},
		{[]string{"up", "extra"}, "unknown command", nil},
	} {
		_, _, err := runDesktop(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

func TestDesktopMissingXvfb(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, _, err := runDesktop(t, "up", "--dir", filepath.Join(t.TempDir(), "d"))
	if !errors.Is(err, vdesk.ErrEnvironment) || !strings.Contains(err.Error(), "apt-get install") {
		t.Errorf("up without Xvfb: %v, want ErrEnvironment naming the package", err)
	}
}
