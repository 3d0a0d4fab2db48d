// Package chromium starts a headless Chromium with a remote debugging
// port: the browser that tests and benchmarks attach to with --cdp, the
// way a user's running browser would be, rather than one canopy launches.
package chromium

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/sysproc"
)

// Flags are the flags every Chromium started here gets: headless, no
// sandbox (CI runs as root), nothing that reaches the network by itself.
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
	"--disable-background-networking", "--disable-component-update",
	"--disable-sync", "--disable-quic",
}

// Options say how to start Chromium.
type Options struct {
	// Exec is the browser binary (default: browser.FindExec's choice).
	Exec string
	// Port is the debugging port; 0 lets Chromium choose one.
	Port int
	// URL is the first page; empty is about:blank.
	URL string
	// Args are extra flags.
	Args []string
}

// Process is a running Chromium in its own process group, with a fresh
// profile that Close removes.
type Process struct {
	// URL is the CDP endpoint, http://127.0.0.1:PORT.
	URL string
	// Port is the debugging port.
	Port int

	cmd     *exec.Cmd
	profile string
	exited  chan struct{}
}

// Start launches Chromium and returns once it listens for CDP, or fails
// when it exits first or ctx ends.
func Start(ctx context.Context, opt Options) (*Process, error) {
	bin, err := browser.FindExec(opt.Exec)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "canopy-chromium-")
	if err != nil {
		return nil, err
	}
	page := opt.URL
	if page == "" {
		page = "about:blank"
	}
	args := append(append(append([]string{}, Flags...), opt.Args...),
		"--remote-debugging-port="+strconv.Itoa(opt.Port), "--user-data-dir="+profile, page)
	p := &Process{cmd: exec.Command(bin, args...), profile: profile, exited: make(chan struct{})}
	sysproc.NewGroup(p.cmd)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	listening := make(chan int, 1)
	go watchStderr(stderr, listening)
	go func() { p.cmd.Wait(); close(p.exited) }()
	select {
	case p.Port = <-listening:
	case <-p.exited:
		p.Close()
		return nil, errors.New("chromium exited before it listened for CDP")
	case <-ctx.Done():
		p.Close()
		return nil, fmt.Errorf("chromium did not listen for CDP: %w", ctx.Err())
	}
	p.URL = "http://127.0.0.1:" + strconv.Itoa(p.Port)
	return p, nil
}

// watchStderr reads Chromium's stderr to its end and sends the port of
// its "DevTools listening on ws://HOST:PORT/…" line.
func watchStderr(r io.Reader, listening chan<- int) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		_, ws, ok := strings.Cut(sc.Text(), "DevTools listening on ws://")
		if !ok {
			continue
		}
		hostPort, _, _ := strings.Cut(ws, "/")
		if _, port, err := net.SplitHostPort(hostPort); err == nil {
			if n, err := strconv.Atoi(port); err == nil {
				select {
				case listening <- n:
				default:
				}
			}
		}
	}
}

// Kill stops Chromium and all its helper processes, and waits for it.
func (p *Process) Kill() {
	_ = sysproc.KillGroup(p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// Close kills Chromium and removes its profile.
func (p *Process) Close() {
	p.Kill()
	_ = os.RemoveAll(p.profile)
}

// Pages lists the URLs of the browser's open pages (its /json/list), for
// tests that check which tabs a session opened or left.
func (p *Process) Pages(ctx context.Context) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/json/list", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var targets []struct{ Type, URL string }
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		return nil, err
	}
	var urls []string
	for _, t := range targets {
		if t.Type == "page" {
			urls = append(urls, t.URL)
		}
	}
	return urls, nil
}
