//go:build linux

package vdesk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Grace periods for stopping: SIGTERM, then SIGKILL.
const (
	termWait = 3 * time.Second
	killWait = 2 * time.Second
)

// Down stops the desktop and removes its directory. It stops, by pid, the
// Xvfb and dbus-daemon that Up started (if they still are those programs)
// and every process whose environment carries the desktop's private
// XDG_RUNTIME_DIR: what the bus activated (at-spi-bus-launcher, its bus,
// at-spi2-registryd, dconf-service …) and apps started on the desktop.
// This process and its ancestors are spared. Each gets SIGTERM, and
// SIGKILL if it is still there after a few seconds or when ctx ends.
// Down is idempotent: on a desktop that is down already it does nothing.
func (d *Desktop) Down(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.stopLocked(ctx)
	if rerr := d.removeDir(); rerr != nil {
		err = errors.Join(err, rerr)
	}
	return err
}

// removeDir removes Dir, but only if it is (still) a desktop directory.
func (d *Desktop) removeDir() error {
	if _, err := os.Stat(d.st.Dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(d.st.Dir, stateFile)); err != nil {
		return fmt.Errorf("left %s in place: it holds no %s: %w", d.st.Dir, stateFile, err)
	}
	// The state file goes first, so that a half-removed directory is
	// never taken for a live desktop.
	if err := os.Remove(filepath.Join(d.st.Dir, stateFile)); err != nil {
		return fmt.Errorf("remove the desktop directory: %w", err)
	}
	if err := os.RemoveAll(d.st.Dir); err != nil {
		// Apps may leave read-only trees (Go's module cache, when HOME is
		// the desktop's); make them writable and try once more.
		filepath.WalkDir(d.st.Dir, func(path string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				os.Chmod(path, 0o700)
			}
			return nil
		})
		if err := os.RemoveAll(d.st.Dir); err != nil {
			return fmt.Errorf("remove the desktop directory: %w", err)
		}
	}
	return nil
}

// stopAll is Down without removing Dir (for a failed Up).
func (d *Desktop) stopAll(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stopLocked(ctx)
}

func (d *Desktop) stopLocked(ctx context.Context) error {
	// Killing may race with the bus activating one more service, so look
	// again after each round.
	for range 3 {
		targets := d.targets()
		if len(targets) == 0 {
			break
		}
		for _, p := range targets {
			d.log.Debug("stopping", "pid", p.PID, "cmdline", cmdline(p.PID))
			if err := p.signal(syscall.SIGTERM); err != nil {
				d.log.Warn("stop", "pid", p.PID, "err", err)
			}
		}
		left := waitGone(ctx, targets, termWait)
		for _, p := range left {
			d.log.Debug("killing", "pid", p.PID, "cmdline", cmdline(p.PID))
			if err := p.signal(syscall.SIGKILL); err != nil {
				d.log.Warn("kill", "pid", p.PID, "err", err)
			}
		}
		waitGone(context.Background(), left, killWait)
	}
	d.reap()
	if left := d.targets(); len(left) > 0 {
		pids := make([]string, len(left))
		for i, p := range left {
			pids[i] = strconv.Itoa(p.PID) + " (" + cmdline(p.PID) + ")"
		}
		return fmt.Errorf("stop the desktop: still running after SIGKILL: %s", strings.Join(pids, ", "))
	}
	return nil
}

// targets returns the desktop's processes that still run: Xvfb and
// dbus-daemon if they are still those programs, and everything with the
// desktop's XDG_RUNTIME_DIR in its environment.
func (d *Desktop) targets() []proc {
	var out []proc
	if d.st.Xvfb.alive(xvfbName) {
		out = append(out, d.st.Xvfb)
	}
	if d.st.Bus.alive(busName) {
		out = append(out, d.st.Bus)
	}
	if d.st.RuntimeDir == "" {
		return out
	}
	for _, p := range withEnv("XDG_RUNTIME_DIR=" + d.st.RuntimeDir) {
		if !slices.ContainsFunc(out, func(q proc) bool { return q.PID == p.PID }) {
			out = append(out, p)
		}
	}
	return out
}

// reap waits (briefly) for the processes this process started to be
// reaped, so none is left a zombie.
func (d *Desktop) reap() {
	deadline := time.After(killWait)
	for pid, c := range d.children {
		if d.st.Xvfb.PID == pid && d.st.Xvfb.running() || d.st.Bus.PID == pid && d.st.Bus.running() {
			continue // still alive: we could not stop it
		}
		select {
		case <-c.done:
			delete(d.children, pid)
		case <-deadline:
			return
		}
	}
}

// waitGone waits until none of procs runs, for at most max or until ctx
// ends, and returns those still running.
func waitGone(ctx context.Context, procs []proc, max time.Duration) []proc {
	timer := time.NewTimer(max)
	defer timer.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		procs = slices.DeleteFunc(procs, func(p proc) bool { return !p.running() })
		if len(procs) == 0 {
			return nil
		}
		select {
		case <-tick.C:
		case <-timer.C:
			return procs
		case <-ctx.Done():
			return procs
		}
	}
}

// cmdline returns a process's command line for messages, shortened.
func cmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return "?"
	}
	s := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
