//go:build linux

package desktop

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// xevLines runs xev (an X program with no accessibility objects, as xterm
// is) and hands its output lines on a channel, for a test to wait on.
type xevLines struct {
	cmd   *exec.Cmd
	lines chan string
	mu    sync.Mutex
	all   strings.Builder
}

func startXev(t *testing.T) *xevLines {
	t.Helper()
	x := &xevLines{cmd: exec.Command("xev", "-geometry", "200x200+50+50"), lines: make(chan string, 1024)}
	out, err := x.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := x.cmd.Start(); err != nil {
		t.Fatalf("start xev (x11-utils): %v", err)
	}
	t.Cleanup(func() { _ = x.cmd.Process.Kill(); _ = x.cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			x.mu.Lock()
			x.all.WriteString(sc.Text() + "\n")
			x.mu.Unlock()
			select {
			case x.lines <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(io.Discard, out)
		close(x.lines)
	}()
	return x
}

// await returns the first line matching re, or fails the test at the cap.
func (x *xevLines) await(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	cap := time.NewTimer(60 * time.Second)
	defer cap.Stop()
	for {
		select {
		case l, ok := <-x.lines:
			if !ok {
				t.Fatal("xev exited")
			}
			if m := re.FindStringSubmatch(l); m != nil {
				return m
			}
		case <-cap.C:
			t.Fatalf("xev never printed %s", re)
		}
	}
}

func (x *xevLines) printed() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.all.String()
}

// TestDeniedByWindowOwner: --apps '!xev' holds for a program with no
// accessibility objects and sets neither WM_CLASS nor _NET_WM_PID, judged
// by its X window's owner (the X server's record of its client's
// process): keys pressed with no target while it holds the focus are
// refused at the sensitive tier, and xev sees none of them; a session
// without the deny reaches it.
func TestDeniedByWindowOwner(t *testing.T) {
	d, _ := open(t)
	x := startXev(t)
	m := x.await(t, regexp.MustCompile(`Outer window is (0x[0-9a-f]+)`))
	x.await(t, regexp.MustCompile(`^MapNotify`))
	id, err := strconv.ParseUint(m[1], 0, 32)
	if err != nil {
		t.Fatal(err)
	}
	disp, err := d.display()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := disp.Raise(ctx, uint32(id)); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Open(action.Sensitive, policy.Apps("!xev"))
	if err != nil {
		t.Fatal(err)
	}
	denied := session.New(d, pol, session.Options{})
	for _, a := range []action.Action{
		{Kind: action.Press, Keys: "q"},
		{Kind: action.Press, Keys: "Return"},
	} {
		_, err := denied.Run(ctx, a)
		if !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "reaches a window of xev, an application --apps denies (!xev), at every tier") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", a, err)
		}
	}
	if out := x.printed(); strings.Contains(out, "KeyPress") {
		t.Errorf("xev received the refused input:\n%s", out)
	}
	// Without the deny, the same keys reach it.
	open := session.New(d, policy.New(action.Sensitive), session.Options{})
	if _, err := open.Run(ctx, action.Action{Kind: action.Press, Keys: "q"}); err != nil {
		t.Fatal(err)
	}
	x.await(t, regexp.MustCompile(`^KeyPress event`))
}
