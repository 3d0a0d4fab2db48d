//go:build linux

package desktop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// TestOpenAppRunsNoPageCode: at act, open_app hands a page's file to no
// program that would run it, and no file from outside the downloads
// folder to any: python3 with a downloaded script, vim with a command,
// mousepad with /etc/hostname or with a link in the downloads folder that
// leads there are refused, one line each, and the script never runs;
// mousepad with a downloaded file opens it.
func TestOpenAppRunsNoPageCode(t *testing.T) {
	d, _ := open(t)
	downloads := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(downloads, "evil.py")
	if err := os.WriteFile(script, []byte("open("+strconvQuote(marker)+", 'w').write('ran')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(downloads, "notes.txt")
	if err := os.WriteFile(notes, []byte("downloaded notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(downloads, "hosts.txt")
	if err := os.Symlink("/etc/hostname", link); err != nil {
		t.Fatal(err)
	}
	s := session.New(d, policy.New(action.Act), session.Options{Downloads: downloads})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, c := range []struct {
		args []string
		why  string
	}{
		{[]string{"/usr/bin/python3", script}, "needs the sensitive tier"},
		{[]string{"vim", "+!touch " + marker, "+qa!"}, "needs the sensitive tier"},
		{[]string{"mousepad", "/etc/hostname"}, "files from " + downloads},
		{[]string{"mousepad", link}, "leads out of " + downloads},
	} {
		_, err := s.Run(ctx, action.Action{Kind: action.OpenApp, Command: c.args[0], Args: c.args[1:]})
		if !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), c.why) || strings.Contains(err.Error(), "\n") {
			t.Errorf("open_app %q at act: %v, want a one-line refusal with %q", c.args, err, c.why)
		}
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the page's code ran (%v)", err)
	}
	r, err := s.Run(ctx, action.Action{Kind: action.OpenApp, Command: "mousepad", Args: []string{notes}})
	if err != nil || !strings.Contains(r.Text, "notes.txt") {
		t.Errorf("open_app mousepad with a downloaded file: %v\n%s", err, r.Text)
	}
}

// strconvQuote quotes s as a Python string literal (ASCII paths only).
func strconvQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
