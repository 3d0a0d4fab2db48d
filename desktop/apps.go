//go:build linux

package desktop

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

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/extract"
	"github.com/canopy-dev/canopy/internal/sysproc"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// OpenAppTimeout is how long open_app waits for the new window by default.
const OpenAppTimeout = 30 * time.Second

// handOverWait is how long open_app waits for a window after the program
// exited successfully, having handed its work to a running instance (which
// may show it in a tab of a window that is already open).
const handOverWait = 3 * time.Second

// launched is a process open_app started.
type launched struct {
	cmd  *exec.Cmd
	out  *tailBuffer
	done chan struct{}
	err  error
}

// openApp starts a program and waits, on AT-SPI events, until a window of
// it shows on the desktop, then gives that window the keyboard focus as a
// window manager would. The reply's diff then shows the window, its
// default focus widget focused. A program that hands its work to a
// running instance and exits (single-instance editors) counts once any new
// window shows; until it exits, only windows of its own process (or of
// processes it started) count, so a service that the program's start-up
// activates (a desktop portal) is not taken for it.
func (d *Desktop) openApp(ctx context.Context, a action.Action) (session.Output, error) {
	path, err := exec.LookPath(a.Command)
	if err != nil {
		return session.Output{}, fmt.Errorf("cannot start %q: not found on PATH", a.Command)
	}
	ch, unsub := d.events.Subscribe()
	defer unsub()
	before, err := d.windowsNow(ctx)
	if err != nil {
		return session.Output{}, err
	}
	cmd := exec.Command(path, a.Args...)
	cmd.Env = appEnv()
	out := &tailBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = out, out
	sysproc.NewSession(cmd)
	if err := cmd.Start(); err != nil {
		return session.Output{}, fmt.Errorf("cannot start %s: %w", a.Command, err)
	}
	l := &launched{cmd: cmd, out: out, done: make(chan struct{})}
	go func() { l.err = cmd.Wait(); close(l.done) }()
	d.mu.Lock()
	d.launched[cmd.Process.Pid] = l
	d.mu.Unlock()

	wait, cancel := context.WithTimeout(ctx, d.appWait)
	defer cancel()
	exited := l.done
	handedOver := false
	var handOver <-chan time.Time
	mine := func(w atspi.Ref) bool {
		return handedOver || ownedBy(d.appInfo(wait, w.Bus).pid, cmd.Process.Pid)
	}
	for {
		now, err := d.windowsNow(wait)
		if err == nil {
			if w, ok := newWindow(before, now, mine); ok {
				err := d.focusWindow(ctx, w)
				if !errors.Is(err, session.ErrStale) {
					return session.Output{}, err
				}
				// GTK 4 lists a new window a moment before it answers
				// for it: look again after the next burst of events
				// (one that went for good is not listed again).
				d.log.Debug("desktop: a new window does not answer yet", "window", w, "err", err)
			}
		}
		select {
		case <-wait.Done():
			return session.Output{}, fmt.Errorf("started %s (pid %d), but no window of it appeared on the accessibility bus within %s (a GTK app must not run with NO_AT_BRIDGE=1; a Qt app needs QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1)",
				a.Command, cmd.Process.Pid, d.appWait)
		case <-exited:
			exited = nil
			if l.err != nil {
				// Its name and exit status only: what a program prints may
				// be anything it can read (docs/tiers.md).
				return session.Output{}, fmt.Errorf("%s exited before showing a window: %v", a.Command, l.err)
			}
			// A single-instance app hands its work to the running instance
			// and exits: that instance may open a window, or only a tab.
			handedOver = true
			handOver = time.After(handOverWait)
		case <-handOver:
			return session.Output{}, nil
		case <-ch:
			// Something happened on the desktop: drain the burst, look again.
			drain(ch)
		}
	}
}

// drain empties a channel of what is waiting in it now.
func drain(ch <-chan atspi.Event) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// windowsNow lists the showing top-level windows of every application.
func (d *Desktop) windowsNow(ctx context.Context) (map[atspi.Ref]bool, error) {
	apps, err := d.conn.Apps(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the desktop's applications: %w", err)
	}
	wins := map[atspi.Ref]bool{}
	for _, a := range apps {
		kids, err := d.conn.Children(ctx, a)
		if err != nil {
			continue
		}
		for _, k := range kids {
			st, err := d.conn.States(ctx, k)
			if err == nil && (st.Has(atspi.StateShowing) || st.Has(atspi.StateVisible)) {
				wins[k] = true
			}
		}
	}
	d.mu.Lock()
	for w := range d.windows {
		wins[w] = true
	}
	d.mu.Unlock()
	return wins, nil
}

// newWindow returns a window of now that was not in before and that
// counts (accept), if any.
func newWindow(before, now map[atspi.Ref]bool, accept func(atspi.Ref) bool) (atspi.Ref, bool) {
	for w := range now {
		if !before[w] && accept(w) {
			return w, true
		}
	}
	return atspi.Ref{}, false
}

// appEnv is the environment for launched apps: ours, with the switches
// that keep accessibility on.
func appEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "NO_AT_BRIDGE=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1")
}

// selectOption picks an option of a combo box or list by its name: through
// the container's Selection interface where it has one, else the option's
// own action.
func (d *Desktop) selectOption(ctx context.Context, it *atspi.Item, option string) error {
	t, err := d.conn.ReadApp(ctx, it.Ref, atspi.ReadOptions{})
	if err != nil {
		return err
	}
	var names []string
	var found *atspi.Item
	var walk func(r atspi.Ref)
	walk = func(r atspi.Ref) {
		x := t.Items[r]
		if x == nil || found != nil {
			return
		}
		if r != it.Ref && cleanName(x.Name) != "" && (x.Role == atspi.RoleMenuItem || roleOf(x) == "option" || roleOf(x) == "listitem" || roleOf(x) == "menuitem") {
			if strings.EqualFold(cleanName(x.Name), tree.CollapseSpace(option)) {
				found = x
				return
			}
			names = append(names, cleanName(x.Name))
		}
		for _, k := range x.Children {
			walk(k)
		}
	}
	walk(it.Ref)
	if found == nil {
		if len(names) == 0 {
			return &session.ActionError{Reason: "it has no options"}
		}
		return &session.ActionError{Reason: fmt.Sprintf("it has no option %q (options: %s)", option, strings.Join(names, ", "))}
	}
	if it.Has("Selection") && found.Index >= 0 {
		if err := d.conn.SelectChild(ctx, it.Ref, found.Index); err == nil {
			return nil
		}
	}
	i, ok := d.defaultAction(ctx, found)
	if !ok {
		return &session.ActionError{Reason: fmt.Sprintf("option %q cannot be chosen", option)}
	}
	return d.conn.DoAction(ctx, found.Ref, i)
}

// extract reads the text of a window or control from the tree; the page
// formats (links, tables, markdown of HTML) have no desktop meaning beyond
// text.
func (d *Desktop) extract(target *tree.Node, a action.Action) (session.Output, error) {
	f, err := extract.ParseFormat(a.Format)
	if err != nil {
		return session.Output{}, err
	}
	_ = f
	if target == nil {
		return session.Output{}, errors.New("extract on the desktop needs a target window or control")
	}
	var b strings.Builder
	tree.Walk(target, func(n *tree.Node) bool {
		switch {
		case n.Role == tree.RoleText || n.Role == "paragraph" || n.Role == "heading":
			b.WriteString(n.Name)
			b.WriteByte('\n')
		case n.Value != "" && !n.States.Has(tree.Protected):
			b.WriteString(n.Value)
			b.WriteByte('\n')
		}
		return true
	})
	return session.Output{Text: b.String()}, nil
}

// tailBuffer keeps the last bytes a process wrote. They are never put in a
// reply or an error: a program's output may be anything it can read.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if t.buf.Len() > t.max {
		b := t.buf.Bytes()[t.buf.Len()-t.max:]
		t.buf.Reset()
		t.buf.Write(b)
	}
	return len(p), nil
}

// StopLaunched ends the processes open_app started that still run (for
// tests, and for a server closing a desktop it brought up itself).
func (d *Desktop) StopLaunched() {
	d.mu.Lock()
	ls := make([]*launched, 0, len(d.launched))
	for _, l := range d.launched {
		ls = append(ls, l)
	}
	clear(d.launched)
	d.mu.Unlock()
	for _, l := range ls {
		_ = sysproc.KillGroup(l.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-l.done:
		case <-time.After(3 * time.Second):
			_ = sysproc.KillGroup(l.cmd.Process.Pid, syscall.SIGKILL)
			<-l.done
		}
	}
}
