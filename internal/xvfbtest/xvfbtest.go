//go:build linux

// Package xvfbtest runs a package's tests against a private Xvfb, so that
// they never touch a real display: the X clients' tests (xinput, capture,
// clipboard) share it.
package xvfbtest

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Main starts Xvfb, points DISPLAY at it, runs the tests and stops it,
// returning the exit code for os.Exit. Without Xvfb it fails under CI
// (CI=true must provide it) and otherwise runs the tests with *skip set
// to the reason, for the tests that need the display to skip on.
func Main(m *testing.M, pkg string, skip *string) int {
	flag.Parse()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if os.Getenv("CI") != "" {
			fmt.Fprintf(os.Stderr, "%s tests need Xvfb and CI must provide it: apt-get install xvfb\n", pkg)
			return 1
		}
		*skip = "Xvfb is not installed (apt-get install xvfb)"
		return m.Run()
	}
	display, stop, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	os.Setenv("DISPLAY", display)
	return m.Run()
}

// Start starts an Xvfb (1280x1024x24) on a free display number, which Xvfb
// picks itself and writes to the -displayfd pipe once it accepts
// connections, and returns its name (":N") and how to stop it.
func Start() (display string, stop func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	var out bytes.Buffer
	// -noreset: by default an X server resets when its last client leaves,
	// which drops connections made meanwhile (EOF, "connection reset").
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-noreset")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	if err := cmd.Start(); err != nil {
		w.Close()
		return "", nil, fmt.Errorf("start Xvfb: %v", err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	stop = func() {
		cmd.Process.Kill()
		<-exited
	}
	select {
	case n := <-line:
		if n == "" {
			stop()
			return "", nil, fmt.Errorf("the Xvfb server gave no display number:\n%s", out.String())
		}
		return ":" + n, stop, nil
	case err := <-exited:
		return "", nil, fmt.Errorf("the Xvfb server exited (%v):\n%s", err, out.String())
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, fmt.Errorf("the Xvfb server did not start in 30s:\n%s", out.String())
	}
}
