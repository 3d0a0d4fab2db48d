//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/canopy-dev/canopy/atspi"
)

// Caps of the waits; none of them is a sleep: each ends as soon as its
// condition holds.
const (
	windowCap = 60 * time.Second // an app's first window (LibreOffice's first start is the slow one)
	quietGap  = 500 * time.Millisecond
	quietCap  = 15 * time.Second
	idleCap   = 30 * time.Second
	idleEvery = 500 * time.Millisecond // CPU sampling window
	idleShare = 0.15                   // "idle": under this share of one core over a window
	goneCap   = 10 * time.Second
	pollEvery = 250 * time.Millisecond // fallback poll of the registry's app list between events
)

// spec is an application the benchmark starts.
type spec struct {
	key, label string
	argv       []string
	env        []string
	// office apps get a fresh profile directory: -env:UserInstallation.
	office bool
}

func specs() []spec {
	return []spec{
		{key: "gtk3", label: "gtk3-widget-factory", argv: []string{"gtk3-widget-factory"}},
		{key: "gtk4", label: "gtk4-widget-factory", argv: []string{"gtk4-widget-factory"}, env: []string{"GSK_RENDERER=cairo"}},
		{key: "writer", label: "LibreOffice Writer", argv: []string{"libreoffice", "--writer", "--norestore"},
			env: []string{"SAL_USE_VCLPLUGIN=gtk3"}, office: true},
	}
}

// proc is an application started by the benchmark, in its own session
// (and process group), so that it and everything it forks can be told
// apart on the desktop and stopped by that group's id.
type proc struct {
	spec spec
	cmd  *exec.Cmd
	out  *tail
	done chan struct{}
	err  error

	// Found once its window is registered.
	root atspi.Ref
	pid  int // the process behind the app's bus name (soffice.bin for Writer)
}

// start launches s on the desktop with env.
func (b *bench) start(s spec) (*proc, error) {
	path, err := exec.LookPath(s.argv[0])
	if err != nil {
		return nil, fmt.Errorf("%s: not installed: %w", s.label, err)
	}
	args := s.argv[1:]
	if s.office {
		b.launches++
		dir := fmt.Sprintf("%s/lo-%d", b.tmp, b.launches) // a fresh profile each start
		if err := seedProfile(dir); err != nil {
			return nil, err
		}
		args = append(args, "-env:UserInstallation=file://"+dir)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(appEnv(), s.env...)
	out := &tail{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.label, err)
	}
	p := &proc{spec: s, cmd: cmd, out: out, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	b.mu.Lock()
	b.procs = append(b.procs, p)
	b.mu.Unlock()
	b.logf("started %s (pid %d)", s.label, cmd.Process.Pid)
	return p, nil
}

// appEnv is this process's environment (the virtual desktop's, once
// applied) without what keeps apps off AT-SPI.
func appEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "NO_AT_BRIDGE", "WAYLAND_DISPLAY":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// stop ends an app's whole process group: SIGTERM, then SIGKILL, and
// waits until its application has left the registry.
func (b *bench) stop(ctx context.Context, p *proc) error {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	err := b.until(ctx, goneCap, p.spec.label+" leaves the desktop", func(ctx context.Context) (bool, error) {
		r, _, err := b.find(ctx, p)
		return err == nil && r.IsNull(), nil
	})
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
	}
	b.mu.Lock()
	for i, q := range b.procs {
		if q == p {
			b.procs = append(b.procs[:i], b.procs[i+1:]...)
			break
		}
	}
	b.mu.Unlock()
	return err
}

// kill ends every app still running, by group id: the clean-up path.
func (b *bench) killAll() {
	b.mu.Lock()
	ps := b.procs
	b.procs = nil
	b.mu.Unlock()
	for _, p := range ps {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	}
	for _, p := range ps {
		select {
		case <-p.done:
		case <-time.After(3 * time.Second):
		}
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// find returns the registered application whose process runs in p's
// session, or a null ref.
func (b *bench) find(ctx context.Context, p *proc) (atspi.Ref, int, error) {
	apps, err := b.conn.Apps(ctx)
	if err != nil {
		return atspi.Ref{}, 0, err
	}
	for _, a := range apps {
		pid, err := b.conn.AppPID(ctx, a.Bus)
		if err != nil {
			continue
		}
		if sid, err := sessionOf(pid); err == nil && sid == p.cmd.Process.Pid {
			return a, pid, nil
		}
	}
	return atspi.Ref{}, 0, nil
}

// statFields reads /proc/PID/stat's fields after the command name: f[0] is
// field 3. It fails when there are fewer than n.
func statFields(pid, n int) ([]string, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return nil, errors.New("malformed stat")
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < n {
		return nil, errors.New("malformed stat")
	}
	return f, nil
}

// sessionOf reads a process's session id (field 6 of /proc/PID/stat).
func sessionOf(pid int) (int, error) {
	f, err := statFields(pid, 4)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(f[3])
}

// waitWindow waits until p's application is registered with a window on
// screen (showing, or visible for GTK 4.8, which never says showing), then
// until the app has gone quiet: no event from it for quietGap.
func (b *bench) waitWindow(ctx context.Context, p *proc) error {
	start := time.Now()
	err := b.until(ctx, windowCap, p.spec.label+" shows a window", func(ctx context.Context) (bool, error) {
		select {
		case <-p.done:
			return false, fmt.Errorf("%s exited before showing a window: %v%s", p.spec.label, p.err, p.out.String())
		default:
		}
		r, pid, err := b.find(ctx, p)
		if err != nil || r.IsNull() {
			return false, nil
		}
		wins, err := b.conn.Children(ctx, r)
		if err != nil {
			return false, nil
		}
		for _, w := range wins {
			st, err := b.conn.States(ctx, w)
			if err == nil && (st.Has(atspi.StateShowing) || st.Has(atspi.StateVisible)) {
				p.root, p.pid = r, pid
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	b.logf("%s: window after %s", p.spec.label, time.Since(start).Round(time.Millisecond))
	quiet := b.quiet(ctx, p.root.Bus)
	b.logf("%s: quiet=%v after %s", p.spec.label, quiet, time.Since(start).Round(time.Millisecond))
	idle := b.idle(ctx, p.pid)
	b.logf("%s: idle=%v after %s", p.spec.label, idle, time.Since(start).Round(time.Millisecond))
	return ctx.Err()
}

// idle waits until the app's process used less than idleShare of a core
// over one idleEvery window (LibreOffice keeps working for seconds after
// its window is up and quiet on the bus), at most idleCap, and reports
// whether it got there. GTK 4's widget factory animates spinners for
// ever, at about a tenth of a core.
func (b *bench) idle(ctx context.Context, pid int) bool {
	ctx, cancel := context.WithTimeout(ctx, idleCap)
	defer cancel()
	tick := time.NewTicker(idleEvery)
	defer tick.Stop()
	last, err := cpuTicks(pid)
	if err != nil {
		return false
	}
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
		now, err := cpuTicks(pid)
		if err != nil {
			return false
		}
		// /proc counts in clock ticks of 10 ms (USER_HZ is 100 on Linux).
		used := time.Duration(now-last) * 10 * time.Millisecond
		if float64(used) < idleShare*float64(idleEvery) {
			return true
		}
		last = now
	}
}

// cpuTicks is a process's user plus system time (fields 14 and 15 of
// /proc/PID/stat), in clock ticks.
func cpuTicks(pid int) (uint64, error) {
	f, err := statFields(pid, 13)
	if err != nil {
		return 0, err
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return u + s, nil
}

// seedProfile prepares a fresh LibreOffice profile that does not open the
// "Tip of the Day" dialog on its first start: the benchmark measures the
// empty document's window, not a dialog over it.
func seedProfile(dir string) error {
	const xcu = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
`
	if err := os.MkdirAll(dir+"/user", 0o700); err != nil {
		return err
	}
	return os.WriteFile(dir+"/user/registrymodifications.xcu", []byte(xcu), 0o600)
}

// until checks cond now, again after every burst of AT-SPI events, and
// every pollEvery in between, until it holds, fails, or limit passes.
func (b *bench) until(ctx context.Context, limit time.Duration, what string, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	ch, unsub := b.events.Subscribe()
	defer unsub()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("waited %s for %s: it did not happen", limit, what)
			}
			return ctx.Err()
		case <-ch:
			drain(ch)
		case <-tick.C:
		}
	}
}

// quiet waits until no event from bus arrived for quietGap (at most
// quietCap) and reports whether it got there.
func (b *bench) quiet(ctx context.Context, bus string) bool {
	ch, unsub := b.events.Subscribe()
	defer unsub()
	ctx, cancel := context.WithTimeout(ctx, quietCap)
	defer cancel()
	gap := time.NewTimer(quietGap)
	defer gap.Stop()
	for {
		select {
		case e := <-ch:
			if e.Source.Bus == bus {
				gap.Reset(quietGap)
			}
		case <-gap.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
}

func drain(ch <-chan atspi.Event) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// tail keeps the last output of an app, for error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2048 {
		t.buf = t.buf[len(t.buf)-2048:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	return "; it said: " + strings.ReplaceAll(s, "\n", " / ")
}
