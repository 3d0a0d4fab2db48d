//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/doctor"
	"github.com/canopy-dev/canopy/vdesk"
)

// runDoctor runs `canopy doctor ARGS` through the cobra command alone.
func runDoctor(t *testing.T, args ...string) (stdout string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	start := time.Now()
	err = runCmd(newDoctorCmd(&out, &errb), &out, &errb, args...)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("canopy doctor took %v", d)
	}
	if errb.Len() > 0 {
		t.Errorf("canopy doctor wrote to stderr: %q", errb.String())
	}
	return out.String(), err
}

// noDesktop clears the variables that name a desktop.
func noDesktop(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv(vdesk.DirVar, "")
}

func TestDoctorCmdNoDesktop(t *testing.T) {
	noDesktop(t)
	out, err := runDoctor(t)
	if !errors.Is(err, doctor.ErrProblems) || !strings.Contains(err.Error(), "display") {
		t.Errorf("err = %v, want doctor.ErrProblems naming display", err)
	}
	for _, want := range []string{
		"FAIL display ", "FAIL session bus ", `fix: eval "$(canopy desktop up)"`, "skip a11y bus ", "at-bridge ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDoctorCmdJSON(t *testing.T) {
	noDesktop(t)
	out, err := runDoctor(t, "--json", "--chromium", "/nonexistent/chromium")
	if !errors.Is(err, doctor.ErrProblems) || !strings.Contains(err.Error(), "browser") {
		t.Errorf("err = %v, want doctor.ErrProblems naming browser", err)
	}
	var r struct {
		OK     bool `json:"ok"`
		Checks []struct {
			Name, Status, Detail, Fix string
			OK                        bool
		} `json:"checks"`
		Apps []json.RawMessage `json:"apps"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if r.OK || r.Apps == nil {
		t.Errorf("ok = %v, apps = %v; want false and []", r.OK, r.Apps)
	}
	byName := map[string]int{}
	for i, c := range r.Checks {
		byName[c.Name] = i
	}
	for _, name := range []string{doctor.NameDisplay, doctor.NameBrowser} {
		i, ok := byName[name]
		if !ok {
			t.Errorf("no %s check in %s", name, out)
			continue
		}
		if c := r.Checks[i]; c.OK || c.Status != "FAIL" || c.Fix == "" {
			t.Errorf("%s = %+v, want FAIL with a fix", name, c)
		}
	}
	if i := byName[doctor.NameBrowser]; !strings.Contains(r.Checks[i].Detail, "/nonexistent/chromium") {
		t.Errorf("browser detail %q does not name --chromium's path", r.Checks[i].Detail)
	}
}

func TestDoctorCmdArgs(t *testing.T) {
	if _, err := runDoctor(t, "extra"); err == nil || errors.Is(err, doctor.ErrProblems) {
		t.Errorf("doctor extra: %v, want a usage error", err)
	}
}

// TestDoctorCmdHealthy: on a fresh virtual desktop with a browser, doctor
// succeeds.
func TestDoctorCmdHealthy(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium is not installed")
	}
	onDesktop(t)
	t.Setenv("CANOPY_CHROMIUM", "")

	out, err := runDoctor(t)
	if err != nil {
		t.Fatalf("doctor on a fresh desktop: %v\n%s", err, out)
	}
	for _, want := range []string{"ok   display ", "ok   session bus ", "ok   a11y bus ", "ok   apps ", "ok   browser ", "ok   desktop "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
