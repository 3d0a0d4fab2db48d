//go:build linux

package vdesk

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/internal/sysproc"
)

// readyTimeout caps the wait for each server to say it is ready.
const readyTimeout = 10 * time.Second

// maxSocketPath is the longest path a unix socket may have on Linux
// (sun_path is 108 bytes with the terminating NUL).
const maxSocketPath = 107

// programs are what Up needs on $PATH, with the Debian package of each.
var programs = [...]struct{ bin, pkg string }{
	{"Xvfb", "xvfb"},
	{"dbus-daemon", "dbus"},
}

// Check reports whether the programs a desktop needs (Xvfb, dbus-daemon)
// are installed. The error wraps ErrEnvironment and names the packages to
// install.
func Check() error {
	var bins, pkgs []string
	var first error
	for _, p := range programs {
		if _, err := exec.LookPath(p.bin); err != nil {
			bins, pkgs = append(bins, p.bin), append(pkgs, p.pkg)
			if first == nil {
				first = err
			}
		}
	}
	if first == nil {
		return nil
	}
	return envErrorf("a virtual desktop needs %s, not found (install: apt-get install %s): %w",
		strings.Join(bins, " and "), strings.Join(pkgs, " "), first)
}

// child is a process this process started; wait reaps it.
type child struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once reaped
	err  error         // Wait's result, set before done closes
}

func (c *child) wait() {
	c.err = c.cmd.Wait()
	close(c.done)
}

// Up brings up a virtual desktop: an Xvfb server and a D-Bus session bus,
// with a private XDG_RUNTIME_DIR and HOME inside opts.Dir, and writes the
// state file Dir/desktop.json. ctx bounds the start-up only: the servers
// run in their own session and outlive both ctx and the calling process
// until Down stops them. Errors about the machine wrap ErrEnvironment.
func Up(ctx context.Context, opts Options) (_ *Desktop, err error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w, h := opts.Width, opts.Height
	if w == 0 && h == 0 {
		w, h = DefaultWidth, DefaultHeight
	}
	if w <= 0 || h <= 0 || w > 16384 || h > 16384 {
		return nil, fmt.Errorf("screen size %dx%d: give a width and height between 1 and 16384", w, h)
	}
	if err := Check(); err != nil {
		return nil, err
	}
	dir, cleanDir, err := makeDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	d := &Desktop{
		st: state{
			Version:    stateVersion,
			Dir:        dir,
			RuntimeDir: filepath.Join(dir, "run"),
			Home:       filepath.Join(dir, "home"),
			Width:      w,
			Height:     h,
			Started:    time.Now().UTC().Truncate(time.Second),
		},
		log:      log,
		children: map[int]*child{},
	}
	defer func() {
		if err != nil {
			stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if serr := d.stopAll(stopCtx); serr != nil {
				log.Warn("clean up after a failed start", "err", serr)
			}
			cleanDir()
		}
	}()
	if err := d.makeTree(); err != nil {
		return nil, err
	}

	size := fmt.Sprintf("%dx%dx%d", w, h, Depth)
	x, line, err := d.startServer(ctx, "Xvfb", "xvfb.log",
		"-displayfd", "3", "-screen", "0", size, "-nolisten", "tcp", "-noreset")
	d.st.Xvfb = x // also on error: the clean-up stops it
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(line)
	if err != nil || n < 0 {
		return nil, envErrorf("Xvfb reported display %q, not a number", line)
	}
	d.st.Display = ":" + strconv.Itoa(n)
	log.Debug("Xvfb ready", "pid", x.PID, "display", d.st.Display)

	socket := filepath.Join(dir, "bus")
	// Activated services (at-spi-bus-launcher …) inherit the daemon's
	// environment, so it must already carry the bus's own address.
	d.st.BusAddress = "unix:path=" + escapeAddr(socket)
	config := "--session"
	if opts.NoPortals {
		path, err := writeNoPortalsConfig(dir, d.Environ())
		if err != nil {
			return nil, err
		}
		config = "--config-file=" + path
	}
	b, addr, err := d.startServer(ctx, "dbus-daemon", "dbus.log",
		config, "--nofork", "--nosyslog", "--print-address=3", "--address="+d.st.BusAddress)
	d.st.Bus = b
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(addr, "unix:") {
		return nil, envErrorf("dbus-daemon reported address %q, not a unix socket", addr)
	}
	d.st.BusAddress = addr
	log.Debug("session bus ready", "pid", b.PID, "address", addr)

	if err := d.st.write(); err != nil {
		return nil, err
	}
	return d, nil
}

// makeDir creates the state directory (or checks that an existing one is
// empty) and returns its absolute path and a func that undoes the
// creation.
func makeDir(dir string) (string, func(), error) {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "canopy-desktop-*")
		if err != nil {
			return "", nil, envErrorf("create the desktop directory: %w", err)
		}
		return tmp, func() { os.RemoveAll(tmp) }, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, fmt.Errorf("desktop directory %s: %w", dir, err)
	}
	entries, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(abs, 0o700); err != nil {
			return "", nil, fmt.Errorf("create the desktop directory: %w", err)
		}
		return abs, func() { os.RemoveAll(abs) }, nil
	case err != nil:
		return "", nil, fmt.Errorf("desktop directory %s: %w", abs, err)
	case len(entries) > 0:
		return "", nil, fmt.Errorf("desktop directory %s is not empty: give a new or empty one (Down removes it)", abs)
	}
	return abs, func() {
		entries, _ := os.ReadDir(abs)
		for _, e := range entries {
			os.RemoveAll(filepath.Join(abs, e.Name()))
		}
	}, nil
}

// makeTree creates the private runtime directory (mode 0700, as the XDG
// spec requires) and the private HOME with its XDG directories.
func (d *Desktop) makeTree() error {
	s := d.st
	// The longest sockets: the session bus and the a11y bus
	// ($XDG_RUNTIME_DIR/at-spi/bus_<display>).
	for _, p := range []string{filepath.Join(s.Dir, "bus"), filepath.Join(s.RuntimeDir, "at-spi", "bus_99999")} {
		if len(p) > maxSocketPath {
			return fmt.Errorf("desktop directory %s is too long for a unix socket path (%d bytes allowed): choose a shorter one", s.Dir, maxSocketPath)
		}
	}
	if err := os.Mkdir(s.RuntimeDir, 0o700); err != nil {
		return fmt.Errorf("create the runtime directory: %w", err)
	}
	if err := os.Chmod(s.RuntimeDir, 0o700); err != nil { // whatever the umask
		return fmt.Errorf("create the runtime directory: %w", err)
	}
	for _, p := range []string{".config", ".cache", filepath.Join(".local", "share")} {
		if err := os.MkdirAll(filepath.Join(s.Home, p), 0o700); err != nil {
			return fmt.Errorf("create the desktop's home: %w", err)
		}
	}
	return nil
}

// startServer starts bin with args in its own session, the desktop's
// environment, output to Dir/logName and a pipe as fd 3, and waits until
// bin writes one line to the pipe (its display number or address). It
// returns the process and the line.
func (d *Desktop) startServer(ctx context.Context, bin, logName string, args ...string) (proc, string, error) {
	logPath := filepath.Join(d.st.Dir, logName)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return proc{}, "", fmt.Errorf("start %s: %w", bin, err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return proc{}, "", fmt.Errorf("start %s: %w", bin, err)
	}
	defer r.Close()

	// Not CommandContext: the server must outlive ctx.
	cmd := exec.Command(bin, args...)
	cmd.Env = d.Environ()
	cmd.Dir = d.st.Home
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{w} // fd 3
	sysproc.NewSession(cmd)
	err = cmd.Start()
	w.Close()
	if err != nil {
		return proc{}, "", envErrorf("start %s: %w", bin, err)
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	go c.wait()
	d.mu.Lock()
	d.children[cmd.Process.Pid] = c
	d.mu.Unlock()
	p, err := identify(cmd.Process.Pid)
	if err != nil {
		p = proc{PID: cmd.Process.Pid} // gone already; the wait below says why
	}
	d.log.Debug("started", "program", bin, "pid", p.PID, "args", args)

	type result struct {
		line string
		err  error
	}
	lines := make(chan result, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		lines <- result{strings.TrimSpace(line), err}
	}()
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	select {
	case res := <-lines:
		if res.line != "" {
			return p, res.line, nil
		}
		// The pipe closed without a line: the server exited (or closed
		// fd 3); give it a moment to be reaped for its exit status.
		select {
		case <-c.done:
		case <-time.After(time.Second):
		}
	case <-c.done:
	case <-ctx.Done():
		return p, "", fmt.Errorf("start %s: %w", bin, ctx.Err())
	case <-timer.C:
		return p, "", envErrorf("%s was not ready after %v; its log %s ends:\n%s", bin, readyTimeout, logPath, tail(logPath))
	}
	status := "closed its ready pipe"
	select {
	case <-c.done:
		status = "exited"
		if c.err != nil {
			status += " (" + c.err.Error() + ")"
		}
	default:
	}
	return p, "", envErrorf("%s %s before it was ready; its log %s ends:\n%s", bin, status, logPath, tail(logPath))
}

// escapeAddr escapes a value for a D-Bus address: bytes outside
// [-0-9A-Za-z_/.*] become %XX (escaping more is always allowed).
func escapeAddr(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-_/.*", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

// tail returns the last lines of a log file, at most about 2 KB.
func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	const max = 2048
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		f.Seek(fi.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(empty)"
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return strings.Join(lines, "\n")
}
