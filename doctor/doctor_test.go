//go:build linux

package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/internal/desktoptest"
	"github.com/canopy-dev/canopy/vdesk"
)

// TestMain runs the tests with a private virtual desktop's environment;
// tests that need no desktop clear the variables themselves.
func TestMain(m *testing.M) { os.Exit(desktoptest.Main(m)) }

// run runs the checks with a short timeout and fails the test when they
// take longer than limit.
func run(t *testing.T, opt Options, limit time.Duration) Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	r := Run(ctx, opt)
	if d := time.Since(start); d > limit {
		t.Errorf("Run took %v, want at most %v", d, limit)
	}
	t.Logf("report:\n%s", r.Format())
	return r
}

func mustCheck(t *testing.T, r Report, name string) Check {
	t.Helper()
	c, ok := r.Check(name)
	if !ok {
		t.Fatalf("no %q check in the report", name)
	}
	return c
}

// TestDoctorEmptyEnv: no display and no session bus fail, with the fix,
// at once.
func TestDoctorEmptyEnv(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv(vdesk.DirVar, "")
	r := run(t, Options{Timeout: 2 * time.Second}, 4*time.Second)

	for _, name := range []string{NameDisplay, NameSessionBus} {
		c := mustCheck(t, r, name)
		if c.OK || c.Status() != "FAIL" || !strings.Contains(c.Fix, "canopy desktop up") {
			t.Errorf("%s: %+v, want FAIL with the fix canopy desktop up", name, c)
		}
	}
	for _, name := range []string{NameA11yBus, NameApps} {
		if c := mustCheck(t, r, name); !c.Skipped || c.Status() != "skip" {
			t.Errorf("%s: %+v, want it skipped", name, c)
		}
	}
	if c := mustCheck(t, r, NameDesktop); !c.OK {
		t.Errorf("desktop without $%s: %+v, want ok", vdesk.DirVar, c)
	}
	if r.OK() {
		t.Error("report OK, want problems")
	}
	err := r.Err()
	if !errors.Is(err, ErrProblems) || !strings.Contains(err.Error(), "display, session bus") {
		t.Errorf("Err() = %v, want ErrProblems naming display and session bus", err)
	}
	text := r.Format()
	for _, want := range []string{
		"FAIL display        DISPLAY is not set — fix: eval \"$(canopy desktop up)\"",
		"FAIL session bus    DBUS_SESSION_BUS_ADDRESS is not set — fix:",
		"skip a11y bus       not checked",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestDoctorLive: on the test's desktop, with zenity open, every
// environment check passes and zenity is a registered app with its pid.
func TestDoctorLive(t *testing.T) {
	if _, err := exec.LookPath("zenity"); err != nil {
		t.Skip("zenity is not installed (apt-get install zenity)")
	}
	if os.Getenv(desktoptest.ReuseVar) != "reuse" {
		if _, err := vdesk.Current(); err != nil {
			t.Fatalf("not on a virtual desktop: %v", err)
		}
	}
	zenity := exec.Command("zenity", "--info", "--text", "hi")
	var out bytes.Buffer
	zenity.Stdout, zenity.Stderr = &out, &out
	if err := zenity.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		zenity.Process.Kill()
		zenity.Wait()
	})
	pid := zenity.Process.Pid

	var r Report
	var app *App
	for deadline := time.Now().Add(20 * time.Second); app == nil; {
		r = Run(context.Background(), Options{Timeout: 5 * time.Second})
		for i, a := range r.Apps {
			if a.Name == "zenity" {
				app = &r.Apps[i]
			}
		}
		if app == nil {
			if time.Now().After(deadline) {
				t.Fatalf("zenity (pid %d) never registered; last report:\n%s\nzenity's output: %s", pid, r.Format(), out.String())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	t.Logf("report:\n%s", r.Format())
	if app.PID != pid {
		t.Errorf("zenity's pid = %d, want %d", app.PID, pid)
	}
	if !strings.EqualFold(app.Toolkit, "gtk") || app.Version == "" {
		t.Errorf("zenity's toolkit = %q %q, want GTK and a version", app.Toolkit, app.Version)
	}
	apps := mustCheck(t, r, NameApps)
	if want := "zenity (pid " + strconv.Itoa(pid); !apps.OK || !strings.Contains(apps.Detail, want) {
		t.Errorf("apps: %+v, want ok listing %q", apps, want)
	}
	for _, name := range []string{NameDisplay, NameSessionBus, NameA11yBus, NameDesktop, NameAtBridge} {
		if c := mustCheck(t, r, name); !c.OK || c.Warn {
			t.Errorf("%s: %+v, want ok", name, c)
		}
	}
	if c := mustCheck(t, r, NameDisplay); !strings.Contains(c.Detail, "XTEST") ||
		!strings.HasPrefix(c.Detail, os.Getenv("DISPLAY")+" (") {
		t.Errorf("display detail %q, want the display name, its size and XTEST", c.Detail)
	}
	if c := mustCheck(t, r, NameA11yBus); !strings.Contains(c.Detail, "registry answers") {
		t.Errorf("a11y bus detail %q, want the registry answering", c.Detail)
	}
}

// TestDoctorDeadBus: a session bus address whose socket accepts but never
// answers fails within the timeout; one whose socket is gone fails at once.
func TestDoctorDeadBus(t *testing.T) {
	dir, err := os.MkdirTemp("", "doctor")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "bus")
	l, err := net.Listen("unix", sock) // never accepted: the kernel's backlog takes the connection
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })

	const timeout = time.Second
	for _, tc := range []struct {
		name, addr, want string
		limit            time.Duration
	}{
		{"silent", "unix:path=" + sock, "no answer within 1s", timeout + 2*time.Second},
		{"gone", "unix:path=" + filepath.Join(dir, "nobody"), "no such file", timeout + 2*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", tc.addr)
			start := time.Now()
			c := checkSession(context.Background(), tc.addr, timeout)
			if d := time.Since(start); d > tc.limit {
				t.Errorf("the session check took %v, want at most %v", d, tc.limit)
			}
			if c.OK || !strings.Contains(c.Detail, tc.want) || !strings.Contains(c.Fix, "canopy desktop up") {
				t.Errorf("session bus: %+v, want FAIL saying %q with a fix", c, tc.want)
			}
			// The whole report is bounded too, and skips what needs the bus.
			r := run(t, Options{Timeout: timeout}, tc.limit+time.Second)
			if c := mustCheck(t, r, NameSessionBus); c.OK {
				t.Errorf("session bus in the report: %+v, want FAIL", c)
			}
			if c := mustCheck(t, r, NameA11yBus); !c.Skipped {
				t.Errorf("a11y bus: %+v, want it skipped", c)
			}
			if !errors.Is(r.Err(), ErrProblems) {
				t.Errorf("Err() = %v, want ErrProblems", r.Err())
			}
		})
	}
}

// TestDoctorBrowserMissing: a --chromium that does not exist fails with a
// fix; so does an empty PATH.
func TestDoctorBrowserMissing(t *testing.T) {
	c := checkBrowser(context.Background(), Options{Chromium: "/nonexistent/chromium", Timeout: time.Second})
	if c.OK || !strings.Contains(c.Detail, "/nonexistent/chromium") || c.Fix == "" {
		t.Errorf("--chromium /nonexistent: %+v, want FAIL with a fix", c)
	}
	t.Setenv("CANOPY_CHROMIUM", "")
	t.Setenv("PATH", t.TempDir())
	c = checkBrowser(context.Background(), Options{Timeout: time.Second})
	if c.OK || !strings.Contains(c.Fix, "apt-get install chromium") {
		t.Errorf("no browser on PATH: %+v, want FAIL with apt-get install chromium", c)
	}
	tools := checkTools(false, false)
	if tools.OK || !strings.Contains(tools.Fix, "apt-get install xvfb dbus") {
		t.Errorf("no Xvfb and no desktop: %+v, want FAIL with apt-get install xvfb dbus", tools)
	}
	if tools := checkTools(true, true); !tools.OK || !tools.Warn {
		t.Errorf("no Xvfb but a working desktop: %+v, want a warning only", tools)
	}
}

// TestDoctorBrowserHang: a browser whose --version never returns is cut
// off at the timeout.
func TestDoctorBrowserHang(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c := checkBrowser(context.Background(), Options{Chromium: bin, Timeout: 500 * time.Millisecond})
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("checkBrowser took %v", d)
	}
	if c.OK || !strings.Contains(c.Detail, "no answer within") {
		t.Errorf("hanging --version: %+v, want FAIL saying no answer", c)
	}
}

// TestDoctorEnvWarnings: NO_AT_BRIDGE warns, and a $CANOPY_DESKTOP that
// names no desktop fails.
func TestDoctorEnvWarnings(t *testing.T) {
	t.Setenv("NO_AT_BRIDGE", "1")
	if c := checkAtBridge(); !c.OK || !c.Warn || !strings.Contains(c.Fix, "unset NO_AT_BRIDGE") {
		t.Errorf("NO_AT_BRIDGE=1: %+v, want a warning", c)
	}
	t.Setenv(vdesk.DirVar, t.TempDir())
	if c := checkDesktop(":1", "unix:path=/x"); c.OK || !strings.Contains(c.Detail, "names no running desktop") {
		t.Errorf("stale $%s: %+v, want FAIL", vdesk.DirVar, c)
	}
}

func TestDoctorChromiumHint(t *testing.T) {
	wins := []window{{PID: 10, Class: "Chromium"}, {PID: 10, Class: "Chromium"}, {PID: 11, Class: "Chromium"},
		{PID: 12, Class: "Zenity"}, {Class: "Google-chrome"}}
	apps := []App{{Name: "Chromium", PID: 11}}
	if got, want := chromiumHint(":1", wins, apps), "Chromium has windows on :1 but is not registered (pid 10)"; got != want {
		t.Errorf("hint = %q, want %q", got, want)
	}
	if got := chromiumHint(":1", wins[2:], apps); got != "" {
		t.Errorf("hint with every Chromium registered = %q, want none", got)
	}
}

func TestDoctorFormat(t *testing.T) {
	r := Report{Checks: []Check{
		{Name: "display", OK: true, Detail: ":1 (Xvfb 1280x1024, XTEST 2.2)"},
		{Name: "session bus", Detail: "DBUS_SESSION_BUS_ADDRESS is not set", Fix: "eval"},
		{Name: "apps", Skipped: true, Detail: "not checked"},
		{Name: "at-bridge", OK: true, Warn: true, Detail: "NO_AT_BRIDGE=1", Fix: "unset it"},
	}, Apps: []App{{Name: "zenity", Bus: ":1.2", PID: 7, Toolkit: "gtk", Version: "3.24.38"}, {Name: "Chromium", PID: 9, Toolkit: "Chromium", Version: "1.0"}}}
	want := "" +
		"ok   display      :1 (Xvfb 1280x1024, XTEST 2.2)\n" +
		"FAIL session bus  DBUS_SESSION_BUS_ADDRESS is not set — fix: eval\n" +
		"skip apps         not checked\n" +
		"warn at-bridge    NO_AT_BRIDGE=1 — fix: unset it\n"
	if got := r.Format(); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	if got := r.Apps[0].String() + "; " + r.Apps[1].String(); got != "zenity (pid 7, gtk 3.24.38); Chromium (pid 9)" {
		t.Errorf("apps = %q", got)
	}
	if err := r.Err(); err == nil || err.Error() != "problems found: session bus" {
		t.Errorf("Err() = %v", err)
	}

	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		OK     bool
		Checks []struct{ Name, Status, Fix string }
		Apps   []App
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.OK || len(got.Checks) != 4 || got.Checks[1].Status != "FAIL" || got.Checks[3].Status != "warn" ||
		got.Checks[1].Fix != "eval" || len(got.Apps) != 2 || got.Apps[0].PID != 7 {
		t.Errorf("JSON = %s", b)
	}
	if b, _ := json.Marshal(Report{}); string(b) != `{"ok":true,"checks":[],"apps":[]}` {
		t.Errorf("empty report JSON = %s", b)
	}
}

// TestDoctorChromiumUnregistered: a headful Chromium started without
// ACCESSIBILITY_ENABLED has windows on the display but no AT-SPI app; the
// apps check warns and says how to fix it.
func TestDoctorChromiumUnregistered(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	for _, k := range []string{"ACCESSIBILITY_ENABLED", "GNOME_ACCESSIBILITY"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
	cmd := exec.Command(bin, "--no-sandbox", "--no-first-run", "--disable-gpu", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--user-data-dir="+t.TempDir(), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // its own process group
		cmd.Wait()
	})
	want := "pid " + strconv.Itoa(cmd.Process.Pid) // the wrapper script execs the browser
	var apps Check
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		r := Run(context.Background(), Options{Timeout: 5 * time.Second})
		apps = mustCheck(t, r, NameApps)
		if apps.Warn || time.Now().After(deadline) {
			t.Logf("report:\n%s", r.Format())
			break
		}
	}
	if !apps.OK || !apps.Warn || !strings.Contains(apps.Detail, "not registered ("+want+")") ||
		!strings.Contains(apps.Fix, "ACCESSIBILITY_ENABLED=1") {
		t.Errorf("apps: %+v, want a warning naming %s with the ACCESSIBILITY_ENABLED fix", apps, want)
	}
}

// TestDoctorPortal: the session bus line says who draws file dialogs, on a
// desktop with the portal and on one without.
func TestDoctorPortal(t *testing.T) {
	for _, m := range desktoptest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			desktoptest.Use(t, m)
			r := Run(context.Background(), Options{})
			c := mustCheck(t, r, NameSessionBus)
			if want := portalNote[!m.NoPortals]; !c.OK || !strings.Contains(c.Detail, want) {
				t.Errorf("session bus: %+v, want ok saying %q", c, want)
			}
		})
	}
}
