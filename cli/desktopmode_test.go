//go:build linux

package cli

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/vdesk"
)

// onDesktop runs the test on a fresh virtual desktop of its own.
func onDesktop(t *testing.T) {
	t.Helper()
	if err := vdesk.Check(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	d, err := vdesk.Up(ctx, vdesk.Options{Dir: t.TempDir() + "/d"})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = d.Down(ctx)
	})
	for _, kv := range d.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	for _, k := range d.Unset() {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// TestDesktopDo drives a zenity dialog from `canopy do --desktop` and reads
// the desktop with `canopy snapshot --desktop`: the same grammar and diffs
// as on a page.
func TestDesktopDo(t *testing.T) {
	onDesktop(t)
	code, out, errOut := run(t, "do", "--desktop", "--apps", "zenity",
		`open_app zenity "--entry" "--title=Add item" "--text=Item name:"; type window:"Add item" >> role:textbox name:"Item name" "milk"; snapshot app:zenity`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{`opened dialog "Add item" (zenity) e2`,
		`~ textbox "Item name" e3: value "" → "milk"`, `textbox "Item name" e3 focused value="milk"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Nothing is left behind: the run's apps closed with it.
	code, out, errOut = run(t, "snapshot", "--desktop")
	if code != 0 {
		t.Fatalf("snapshot --desktop: exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "zenity") {
		t.Errorf("zenity still on the desktop after the run:\n%s", out)
	}
	if code, _, errOut = run(t, "snapshot", "--desktop", "--scope", "app:nothing"); code != 1 || !strings.Contains(errOut, "no element matches app:nothing") {
		t.Errorf("scope to a missing app: exit %d, %s", code, errOut)
	}
}

// TestDesktopNoDisplay: without a display the desktop commands say what to
// do and exit 2.
func TestDesktopNoDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	code, _, errOut := run(t, "snapshot", "--desktop")
	if code != ExitEnv || !strings.Contains(errOut, "canopy desktop up") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestMCPDesktopBringsUpADisplay: `canopy mcp --desktop` with no DISPLAY
// starts its own virtual desktop, serves it, and takes it down at exit.
func TestMCPDesktopBringsUpADisplay(t *testing.T) {
	if err := vdesk.Check(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("CANOPY_DESKTOP", "")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"snapshot","arguments":{}}}`,
	}, "\n") + "\n"
	var out, errb strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := Main(ctx, []string{"mcp", "--desktop"}, strings.NewReader(in), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "started a virtual desktop on :") {
		t.Errorf("stderr does not say a desktop was started: %s", errb.String())
	}
	if !strings.Contains(out.String(), `desktop \":`) {
		t.Errorf("the snapshot is not the desktop's:\n%s", out.String())
	}
}
