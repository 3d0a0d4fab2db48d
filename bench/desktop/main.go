//go:build linux

// Command desktop benchmarks canopy on the Linux desktop (AT-SPI2), side by
// side with Debian's pyatspi, on a virtual desktop of its own (vdesk; or
// the current desktop with -reuse):
//
//   - per application (gtk3-widget-factory, gtk4-widget-factory,
//     LibreOffice Writer), started one at a time so that each has the
//     desktop to itself: the whole tree read by canopy's AT-SPI client
//     (ReadApp + Fill with extents) and walked by pyatspi (role, name,
//     states and extents of every node), interleaved run by run; and
//     desktop.Snapshot of the whole desktop with its nodes, bytes and o200k
//     tokens, timed as a fresh Desktop's first snapshot and its next one
//     (which reuses the apps that sent no event meanwhile);
//   - the snapshot again with all three applications up together;
//   - an action through session.Run on gtk3-widget-factory (click a check
//     box, then click it back): reply tokens and milliseconds, alone and
//     with all three applications up.
//
// Each app is waited for without fixed sleeps: until its window is
// registered (checked on every AT-SPI event burst, and every 250 ms
// between), then until it sent no event for 500 ms, then until its process
// idles (under 15% of a core over 500 ms), each with a cap. Writer gets a
// fresh profile (in a temporary directory, removed at the end) that skips
// the Tip of the Day dialog; it is skipped with a note when not installed.
//
// Times are medians of -n runs, after one untimed warm-up. The result is a
// markdown table on stdout (or JSON with -json); nothing else is written.
// The apps and the virtual desktop are stopped at the end, also on error
// and on SIGINT/SIGTERM.
//
//	go run ./bench/desktop [-n 5] [-reuse] [-json] [-v]
//
// pyatspi runs under /usr/bin/python3 (Debian's python3-pyatspi); the
// python3 first on PATH may be another one without it. The walk script,
// pyatspi_walk.py, is embedded and passed with -c.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/desktop"
	"github.com/canopy-dev/canopy/tokens"
	"github.com/canopy-dev/canopy/vdesk"
)

//go:embed pyatspi_walk.py
var walkScript string

// python is Debian's interpreter, the one python3-pyatspi installs into.
const python = "/usr/bin/python3"

func main() {
	os.Exit(realMain())
}

type bench struct {
	runs    int
	reuse   bool
	verbose bool

	vd      *vdesk.Desktop
	restore func()
	tmp     string // LibreOffice profiles
	d       *desktop.Desktop
	conn    *atspi.Conn     // our own connection, for waiting on apps
	events  *atspi.Listener // on conn
	tok     *tokens.Counter

	mu       sync.Mutex
	procs    []*proc
	launches int
	once     sync.Once
}

func realMain() int {
	b := &bench{}
	flag.IntVar(&b.runs, "n", 5, "runs per measurement (the median is printed)")
	flag.BoolVar(&b.reuse, "reuse", false, "use the desktop that DISPLAY and DBUS_SESSION_BUS_ADDRESS name instead of a virtual one")
	flag.BoolVar(&b.verbose, "v", false, "say on stderr what happens")
	asJSON := flag.Bool("json", false, "print the results as JSON instead of markdown")
	flag.Parse()
	if b.runs < 1 {
		fmt.Fprintln(os.Stderr, "bench: -n must be at least 1")
		return 2
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupted: stop what runs, clean up, exit. A second signal (or a
	// clean-up that hangs) does not wait for the run to wind down.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "bench: %v: stopping the apps and the virtual desktop\n", sig)
		cancel()
		select {
		case <-sigs:
		case <-time.After(20 * time.Second):
		}
		b.cleanup()
		os.Exit(130)
	}()
	defer b.cleanup()

	res, err := b.run(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		if res == nil {
			return 1
		}
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(res); jerr != nil {
			fmt.Fprintln(os.Stderr, "bench:", jerr)
			return 1
		}
	} else {
		res.markdown(os.Stdout)
	}
	if err != nil {
		return 1
	}
	return 0
}

// setup brings up (or joins) the desktop and connects.
func (b *bench) setup(ctx context.Context) error {
	if _, err := os.Stat(python); err != nil {
		return fmt.Errorf("%s not found (install python3-pyatspi)", python)
	}
	if !b.reuse {
		upCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		vd, err := vdesk.Up(upCtx, vdesk.Options{})
		cancel()
		if err != nil {
			return fmt.Errorf("bring up a virtual desktop: %w", err)
		}
		b.mu.Lock()
		b.vd = vd
		b.mu.Unlock()
		b.restore = vd.Apply()
		b.logf("virtual desktop %s on %s", vd.Dir(), vd.Display())
	} else if os.Getenv("DISPLAY") == "" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return errors.New("-reuse needs DISPLAY and DBUS_SESSION_BUS_ADDRESS of a running desktop")
	}
	var err error
	if b.tmp, err = os.MkdirTemp("", "canopy-bench-desktop-*"); err != nil {
		return err
	}
	if b.conn, err = atspi.Connect(ctx, atspi.Options{}); err != nil {
		return err
	}
	// Children added to the desktop root announce apps; window and state
	// events, their windows; any event from an app means it is not quiet.
	if b.events, err = b.conn.Listen(ctx, nil); err != nil {
		return err
	}
	if b.d, err = desktop.Open(ctx, desktop.Options{}); err != nil {
		return err
	}
	b.tok, err = tokens.New()
	return err
}

// cleanup stops the apps, disconnects, and takes the virtual desktop down.
// It runs once, from the normal exit or the signal handler.
func (b *bench) cleanup() {
	b.once.Do(func() {
		b.killAll()
		if b.d != nil {
			b.d.Close()
		}
		if b.events != nil {
			b.events.Close()
		}
		if b.conn != nil {
			b.conn.Close()
		}
		b.mu.Lock()
		vd := b.vd
		b.mu.Unlock()
		if vd != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := vd.Down(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "bench: taking the virtual desktop down:", err)
			}
			cancel()
		}
		if b.restore != nil {
			b.restore()
		}
		if b.tmp != "" {
			os.RemoveAll(b.tmp)
		}
	})
}

func (b *bench) logf(format string, args ...any) {
	if b.verbose {
		fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	}
}
