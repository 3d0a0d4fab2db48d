// Package doctor checks what canopy needs on this machine and says how to
// fix what is missing: the X display (and XTEST), the D-Bus session bus,
// the AT-SPI accessibility bus and its registry, the applications
// registered there, the browser binary, the programs `canopy desktop up`
// needs, and the environment variables that silently break accessibility.
// `canopy doctor` prints its Report.
//
// Every check has a timeout: a bus or X server that accepts a connection
// and then never answers makes its check fail, not hang. Checks that wait
// on something (the display, the bus chain, the browser) run concurrently,
// so a report takes about one timeout at worst per chain link.
//
// The desktop's checks are Linux's (//go:build linux). On other systems the
// report has the browser's check and a warning that the desktop is Linux
// only so far.
package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/sysproc"
)

// ErrProblems is wrapped by [Report.Err] when a check failed.
var ErrProblems = errors.New("problems found")

// DefaultTimeout caps each check when Options.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// versionTimeout caps `chromium --version`.
const versionTimeout = 5 * time.Second

// Check names, in the order of a report.
const (
	NameDisplay      = "display"
	NameSessionBus   = "session bus"
	NameA11yBus      = "a11y bus"
	NameApps         = "apps"
	NameBrowser      = "browser"
	NameDesktop      = "desktop"
	NameDesktopTools = "desktop tools"
	NameAtBridge     = "at-bridge"
)

// Options tune Run. Zero values take the defaults.
type Options struct {
	// Chromium is the browser binary to check (the --chromium flag); empty
	// means what canopy would launch: $CANOPY_CHROMIUM, else chromium,
	// chromium-browser, google-chrome, google-chrome-stable on $PATH.
	Chromium string
	// Timeout caps each check (default DefaultTimeout). `--version` of the
	// browser is capped at 5 s or Timeout, whichever is less.
	Timeout time.Duration
}

// Run runs every check and returns the report. It returns within a few
// timeouts even when a bus or server never answers; cancelling ctx ends it
// sooner, with the unfinished checks failed.
func Run(ctx context.Context, opt Options) Report {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	var (
		wg           sync.WaitGroup
		desk         desktopReport
		browserCheck Check
	)
	wg.Go(func() { desk = checkDesktops(ctx, opt.Timeout) })
	wg.Go(func() { browserCheck = checkBrowser(ctx, opt) })
	wg.Wait()
	checks := append(append(desk.before, browserCheck), desk.after...)
	return Report{Checks: checks, Apps: desk.apps}
}

// desktopReport is what the desktop's checks found: the checks the report
// lists before the browser's and after it, and the registered
// applications.
type desktopReport struct {
	before, after []Check
	apps          []App
}

func skipped(name, why string) Check {
	return Check{Name: name, Skipped: true, Detail: "not checked: " + why}
}

// clean makes a name from an application safe for one report line.
func clean(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s))
}

// chromiumNames are the program names canopy looks for.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// checkBrowser finds the browser canopy would launch and asks its version.
func checkBrowser(ctx context.Context, opt Options) Check {
	c := Check{Name: NameBrowser}
	path, err := browser.FindExec(opt.Chromium)
	if err != nil {
		switch {
		case opt.Chromium != "":
			c.Detail = fmt.Sprintf("--chromium %s not found", opt.Chromium)
			c.Fix = "give the path of a Chromium or Chrome binary"
		case os.Getenv("CANOPY_CHROMIUM") != "":
			c.Detail = fmt.Sprintf("$CANOPY_CHROMIUM=%s not found", os.Getenv("CANOPY_CHROMIUM"))
			c.Fix = "set CANOPY_CHROMIUM to a Chromium or Chrome binary, or unset it"
		default:
			c.Detail = "no " + strings.Join(chromiumNames[:2], ", ") + ", google-chrome or google-chrome-stable on $PATH"
			c.Fix = "apt-get install chromium (or pass --chromium PATH, or set CANOPY_CHROMIUM)"
		}
		return c
	}
	v, err := BrowserVersion(ctx, path, min(versionTimeout, opt.Timeout))
	if err != nil {
		c.Detail = fmt.Sprintf("%s --version: %v", path, err)
		c.Fix = "reinstall it (apt-get install --reinstall chromium), or pass --chromium PATH to a working browser"
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%s (%s)", path, v)
	return c
}

// BrowserVersion asks the browser at path its version ("Chromium
// 156.0.8078.108 built on Debian …"): what `canopy doctor` reports, and
// what a test that reads the browser's own UI names when it fails, since
// a point release may draw that UI differently. It runs `path --version`
// in its own process group, which is killed when the timeout passes
// (Debian's chromium is a wrapper script).
func BrowserVersion(ctx context.Context, path string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	sysproc.NewGroup(cmd)
	cmd.Cancel = func() error { return sysproc.KillGroup(cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("no answer within %v", timeout)
	}
	if err != nil {
		if tail := lastLine(stderr.String()); tail != "" {
			return "", fmt.Errorf("%v: %s", err, tail)
		}
		return "", err
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if v == "" {
		return "", errors.New("printed no version")
	}
	return clean(v), nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return clean(s[strings.LastIndexByte(s, '\n')+1:])
}
