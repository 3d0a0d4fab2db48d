package chromiumui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// recorder is a testing.TB whose test failed: it keeps the cleanups and
// what was logged.
type recorder struct {
	testing.TB
	cleanups []func()
	logged   []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Failed() bool        { return true }
func (r *recorder) Cleanup(f func())    { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Log(args ...any)     { r.logged = append(r.logged, fmt.Sprint(args...)) }
func (r *recorder) Logf(string, ...any) { panic("Relies logs with Log") }

// TestRelies: a failed test that relies on facts logs them and the version
// of the Chromium on this machine (the tests install it).
func TestRelies(t *testing.T) {
	r := &recorder{TB: t}
	Relies(r, PermissionChip, PrintPreview)
	for _, f := range r.cleanups {
		f()
	}
	if len(r.logged) != 1 {
		t.Fatalf("logged %d messages, want 1: %q", len(r.logged), r.logged)
	}
	msg := r.logged[0]
	for _, f := range []Fact{PermissionChip, PrintPreview} {
		if !strings.Contains(msg, "\n  - "+string(f)) {
			t.Errorf("the message lacks the fact %q:\n%s", f, msg)
		}
	}
	if !regexp.MustCompile(`\nChromium here: (Chromium|Google Chrome) \d+\.\d+\.\d+\.\d+`).MatchString(msg) {
		t.Errorf("the message does not name the Chromium version:\n%s", msg)
	}
}
