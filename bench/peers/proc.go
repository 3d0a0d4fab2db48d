//go:build linux

package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// killGroup signals the process group that cmd leads, and waits for cmd to
// exit (exited is closed by whoever waits on cmd).
func killGroup(cmd *exec.Cmd, exited <-chan struct{}, grace time.Duration) {
	if cmd.Process == nil {
		return
	}
	pgid := cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
		// Helpers left in the group (crashpad, zygotes) go too.
		syscall.Kill(-pgid, syscall.SIGKILL)
	case <-t.C:
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
}

// tail keeps the last max bytes written to it; used for stderr, to give a
// one-line reason when a process fails.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

// line returns the last non-empty line written, or "" if none.
func (t *tail) line() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(string(lines[i])); l != "" {
			return oneLine(l, 160)
		}
	}
	return ""
}

// oneLine collapses s onto one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

var errHung = errors.New("server hung")
