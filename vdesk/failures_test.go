//go:build linux

package vdesk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMissingPrograms(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := Check()
	if !errors.Is(err, ErrEnvironment) || !strings.Contains(err.Error(), "apt-get install xvfb dbus") {
		t.Errorf("Check = %v, want ErrEnvironment naming apt-get install xvfb dbus", err)
	}
	dir := filepath.Join(t.TempDir(), "desk")
	if _, err := Up(context.Background(), Options{Dir: dir}); !errors.Is(err, ErrEnvironment) {
		t.Errorf("Up = %v, want ErrEnvironment", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Up created %s although it failed", dir)
	}
}

// TestXvfbFails checks that a server dying at start is reported with the
// end of its log, and that nothing is left behind.
func TestXvfbFails(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho 'Fatal server error: (EE) no screens found' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "Xvfb"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := filepath.Join(t.TempDir(), "desk")
	_, err := Up(context.Background(), Options{Dir: dir})
	if !errors.Is(err, ErrEnvironment) || !strings.Contains(err.Error(), "no screens found") || !strings.Contains(err.Error(), "exited") {
		t.Errorf("Up = %v, want ErrEnvironment with Xvfb's log", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Up left %s behind", dir)
	}
}

func TestUpCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := filepath.Join(t.TempDir(), "desk")
	_, err := Up(ctx, Options{Dir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Up = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Up left %s behind", dir)
	}
	if left := withEnv("XDG_RUNTIME_DIR=" + filepath.Join(dir, "run")); len(left) > 0 {
		t.Errorf("processes left after a cancelled Up: %v", names(left))
	}
}

func TestBadOptions(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(t.TempDir(), strings.Repeat("x", 100))
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"size", Options{Width: -1, Height: 10}, "between 1 and 16384"},
		{"not empty", Options{Dir: full}, "not empty"},
		{"too long", Options{Dir: long}, "too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Up(context.Background(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrEnvironment) {
				t.Errorf("Up = %v, want an input error with %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(full, "keep")); err != nil {
		t.Errorf("Up touched a non-empty dir: %v", err)
	}
}

func TestApply(t *testing.T) {
	d := &Desktop{st: state{Dir: "/tmp/d", Display: ":42", BusAddress: "unix:path=/tmp/d/bus",
		RuntimeDir: "/tmp/d/run", Home: "/tmp/d/home"}}
	t.Setenv("DISPLAY", ":0")
	t.Setenv("NO_AT_BRIDGE", "1")
	t.Setenv("GSK_RENDERER", "")
	os.Unsetenv("GSK_RENDERER")

	restore := d.Apply()
	for k, want := range map[string]string{
		"DISPLAY": ":42", "XDG_RUNTIME_DIR": "/tmp/d/run", "HOME": "/tmp/d/home",
		"XDG_CONFIG_HOME": "/tmp/d/home/.config", "XDG_DATA_HOME": "/tmp/d/home/.local/share",
		DirVar: "/tmp/d", "GSK_RENDERER": "cairo", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/d/bus",
	} {
		if got := os.Getenv(k); got != want {
			t.Errorf("after Apply %s = %q, want %q", k, got, want)
		}
	}
	if _, ok := os.LookupEnv("NO_AT_BRIDGE"); ok {
		t.Error("NO_AT_BRIDGE still set after Apply")
	}
	env := d.Environ()
	if slices.Contains(env, "NO_AT_BRIDGE=1") || !slices.Contains(env, "DISPLAY=:42") || slices.Contains(env, "DISPLAY=:0") {
		t.Errorf("Environ = %v", env)
	}

	restore()
	restore()
	if got := os.Getenv("DISPLAY"); got != ":0" {
		t.Errorf("restored DISPLAY = %q, want :0", got)
	}
	if got := os.Getenv("NO_AT_BRIDGE"); got != "1" {
		t.Errorf("restored NO_AT_BRIDGE = %q, want 1", got)
	}
	if _, ok := os.LookupEnv("GSK_RENDERER"); ok {
		t.Error("GSK_RENDERER set after restore, want unset")
	}
}
