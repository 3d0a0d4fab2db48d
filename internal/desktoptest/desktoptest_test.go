//go:build linux

package desktoptest

import (
	"os"
	"testing"

	"github.com/canopy-dev/canopy/vdesk"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestOnDesktop checks that the tests run with a desktop's environment
// applied, and that it answers.
func TestOnDesktop(t *testing.T) {
	if err := Live(os.Getenv("DISPLAY"), os.Getenv("DBUS_SESSION_BUS_ADDRESS")); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(ReuseVar) == "reuse" {
		return // the reused desktop need not be a vdesk one
	}
	d, err := vdesk.Current()
	if err != nil {
		t.Fatal(err)
	}
	if !d.Alive() {
		t.Fatalf("desktop %s is not alive", d.Dir())
	}
	if got := os.Getenv("DISPLAY"); got != d.Display() {
		t.Errorf("DISPLAY = %q, want %q", got, d.Display())
	}
	if got := os.Getenv("GSK_RENDERER"); got != "cairo" {
		t.Errorf("GSK_RENDERER = %q, want cairo", got)
	}
	if v, ok := os.LookupEnv("NO_AT_BRIDGE"); ok {
		t.Errorf("NO_AT_BRIDGE = %q, want it unset", v)
	}
}

// TestUse: a test's own desktop, in each mode, replaces the package's for
// the test and is gone after it, the environment restored.
func TestUse(t *testing.T) {
	outer := os.Getenv("DISPLAY")
	for _, m := range Modes {
		var d *vdesk.Desktop
		t.Run(m.Name, func(t *testing.T) {
			d = Use(t, m)
			if got := os.Getenv("DISPLAY"); got != d.Display() || got == outer {
				t.Errorf("DISPLAY = %q, want the test's own %q (the package's is %q)", got, d.Display(), outer)
			}
			if err := Live(os.Getenv("DISPLAY"), os.Getenv("DBUS_SESSION_BUS_ADDRESS")); err != nil {
				t.Fatal(err)
			}
		})
		if got := os.Getenv("DISPLAY"); got != outer {
			t.Errorf("after %s: DISPLAY = %q, want the package's %q back", m.Name, got, outer)
		}
		if d != nil && d.Alive() {
			t.Errorf("the %s desktop still runs after its test", m.Name)
		}
	}
}
