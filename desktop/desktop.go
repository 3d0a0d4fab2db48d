//go:build linux

package desktop

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/capture"
	"github.com/canopy-dev/canopy/clipboard"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/xinput"
)

// Desktop is the AT-SPI source. One Desktop serves one session; it is safe
// for concurrent use.
type Desktop struct {
	conn    *atspi.Conn
	events  *atspi.Listener
	refs    *tree.Refs
	log     *slog.Logger
	skipWeb bool
	appWait time.Duration

	mu sync.Mutex
	// items maps a node's key to its object as last read, for acting.
	items map[string]*atspi.Item
	// windows are top-level windows announced by events (window:create,
	// focus) that the desktop root may not list, by their app's bus name.
	windows map[atspi.Ref]string
	// shown are the windows the last snapshot held, by key (gone.go).
	shown map[string]shownWindow
	// cache holds each application's subtree as last read; dirty marks
	// the bus names that sent events since.
	cache map[atspi.Ref]*readApp
	dirty map[string]bool
	// launched are the processes open_app started, by pid.
	launched map[int]*launched
	// apps holds each application's process and coordinate kind.
	apps appInfos
	x    *xinput.Display
	shot *capture.Screen      // screenshots' X connection, opened on first use
	clip *clipboard.Clipboard // the X clipboard, opened on first use; owns what was written
	// copied is the agent's last copy (paste.go).
	copied copyMark
	// prompt is the permission prompt bubble that showed last, and when.
	prompt   atspi.Ref
	promptAt time.Time
	// browserWindows is what the watches learned of browser windows'
	// permission chips (prompt.go).
	browserWindows windowMemory
	stop           func()
	// acted is the bus name of the application the last action went to;
	// barriers are the flushes' barrier events track has yet to see, by
	// token (watch.go).
	acted    string
	barriers map[string]chan struct{}
}

// Open connects to the desktop's accessibility bus and starts listening.
// It fails with an error wrapping ErrEnvironment when there is no display
// or no session bus, saying how to get one.
func Open(ctx context.Context, opt Options) (*Desktop, error) {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Refs == nil {
		opt.Refs = tree.NewRefs()
	}
	if opt.AppTimeout <= 0 {
		opt.AppTimeout = OpenAppTimeout
	}
	if os.Getenv("DISPLAY") == "" {
		return nil, fmt.Errorf("%w: no display: DISPLAY is not set (start a virtual desktop with `eval \"$(canopy desktop up)\"`)", ErrEnvironment)
	}
	conn, err := atspi.Connect(ctx, atspi.Options{Timeout: opt.Timeout, Logger: opt.Logger})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
	}
	// Listening first also makes ATK applications create their Cache.
	ev, err := conn.Listen(ctx, nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
	}
	d := &Desktop{conn: conn, events: ev, refs: opt.Refs, log: opt.Logger, skipWeb: opt.SkipWeb, appWait: opt.AppTimeout,
		items: map[string]*atspi.Item{}, windows: map[atspi.Ref]string{}, launched: map[int]*launched{},
		cache: map[atspi.Ref]*readApp{}, dirty: map[string]bool{}, barriers: map[string]chan struct{}{}}
	ch, unsub := ev.Subscribe()
	done := make(chan struct{})
	go d.track(ch, done)
	d.stop = func() { unsub(); close(done) }
	return d, nil
}

// Close stops listening and disconnects, and ends the applications
// open_app started: a session leaves no windows behind.
func (d *Desktop) Close() error {
	d.StopLaunched()
	d.stop()
	d.events.Close()
	d.mu.Lock()
	if d.x != nil {
		d.x.Close()
		d.x = nil
	}
	if d.shot != nil {
		d.shot.Close()
		d.shot = nil
	}
	if d.clip != nil {
		d.clip.Close()
		d.clip = nil
	}
	d.mu.Unlock()
	return d.conn.Close()
}

// Refs returns the desktop's ref table (session.RefKeeper).
func (d *Desktop) Refs() *tree.Refs { return d.refs }

// Conn is the AT-SPI connection, for tools (doctor, benchmarks).
func (d *Desktop) Conn() *atspi.Conn { return d.conn }

// Has reports whether n is a desktop object of the last snapshot (rather
// than, say, a page node a browser source grafted into the tree).
func (d *Desktop) Has(n *tree.Node) bool {
	_, ok := d.item(n)
	return ok
}

// IsWebDocument reports whether n is a tab's web document (Chromium's page
// area), where a browser source's page belongs: not one in a window nested
// in the browser window, a dialog Chromium draws with web content such as
// its print preview (see readWebDialogs).
func (d *Desktop) IsWebDocument(n *tree.Node) bool {
	it, ok := d.item(n)
	return ok && it.Role == atspi.RoleDocumentWeb && !d.inNestedWindow(it)
}

// track marks applications that sent events as changed (so the next
// snapshot reads them again) and remembers windows that events announce,
// so a snapshot can show windows that hang outside the desktop root.
//
// A window is filed and its application marked changed under one lock: a
// snapshot that read the application in between would otherwise keep
// showing it without the window until its next event.
func (d *Desktop) track(ch <-chan atspi.Event, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case e := <-ch:
			if e.Type == atspi.BarrierEvent {
				d.passedBarrier(e)
				continue
			}
			d.mu.Lock()
			d.dirty[e.Source.Bus] = true
			switch e.Type {
			case "window:create", "window:activate":
				d.windows[e.Source] = e.Source.Bus
			case "window:destroy":
				delete(d.windows, e.Source)
			}
			d.mu.Unlock()
			if e.Type == "object:state-changed:focused" && e.Detail1 == 1 {
				d.noteFocus(e.Source)
			}
		}
	}
}

// noteFocus finds the window of a focused object that no known window
// holds (a dialog that opened while nothing listened) by walking up to the
// outermost window below the application, and files it. The walk stops at
// the first object the last snapshot showed or a window already filed:
// its window is known.
//
// Chromium's GTK 3 Save dialog, opened before the listener, is found this
// way once the focus moves inside it: the event comes from the focused
// control, and its parents lead to the dialog.
func (d *Desktop) noteFocus(r atspi.Ref) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	focused := r
	var win atspi.Ref
	for i := 0; i < 64 && !r.IsNull(); i++ {
		if d.known(r) {
			return
		}
		it, err := d.conn.ReadItem(ctx, r)
		if err != nil {
			d.log.Debug("desktop: walking up from a focused object", "focused", focused, "at", r, "err", err)
			break
		}
		if it.Role == atspi.RoleApplication {
			break
		}
		if isWindowRole(it.Role) {
			win = r
		}
		r = it.Parent
	}
	if win.IsNull() {
		return
	}
	d.log.Debug("desktop: a focus event found a window", "focused", focused, "window", win)
	d.mu.Lock()
	d.windows[win] = win.Bus
	d.dirty[win.Bus] = true
	d.mu.Unlock()
}

// known reports whether r was in the last snapshot or is a window events
// filed.
func (d *Desktop) known(r atspi.Ref) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, shown := d.items[r.String()]
	_, filed := d.windows[r]
	return shown || filed
}

// display returns the X input connection, opening it on first use.
func (d *Desktop) display() (*xinput.Display, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.x != nil {
		return d.x, nil
	}
	x, err := xinput.Open("")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
	}
	d.x = x
	return x, nil
}

// item returns the object behind a node of the last snapshot.
func (d *Desktop) item(n *tree.Node) (*atspi.Item, bool) {
	if n == nil {
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	it, ok := d.items[n.Key]
	return it, ok
}

// expectBarrier returns a channel that track closes once it has seen the
// barrier token, and so every event before it.
func (d *Desktop) expectBarrier(token string) <-chan struct{} {
	ch := make(chan struct{})
	d.mu.Lock()
	d.barriers[token] = ch
	d.mu.Unlock()
	return ch
}

// forgetBarrier drops a barrier nobody waits for any more.
func (d *Desktop) forgetBarrier(token string) {
	d.mu.Lock()
	delete(d.barriers, token)
	d.mu.Unlock()
}

// passedBarrier notes, on track's goroutine, that a barrier came through.
func (d *Desktop) passedBarrier(e atspi.Event) {
	token, _ := e.Data.(string)
	d.mu.Lock()
	defer d.mu.Unlock()
	if ch, ok := d.barriers[token]; ok {
		close(ch)
		delete(d.barriers, token)
	}
}

// noteActedOn remembers the application of an action's target ("" for
// none): the flushes of the action's settling make a round trip to it.
func (d *Desktop) noteActedOn(target *tree.Node) {
	bus := ""
	if target != nil {
		if it, ok := d.item(target); ok {
			bus = it.Ref.Bus
		}
	}
	d.mu.Lock()
	d.acted = bus
	d.mu.Unlock()
}

// actedOn is the bus name of the application the last action went to.
func (d *Desktop) actedOn() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.acted
}

// AppOf returns the bus name of the application process pid runs, among
// those the snapshots read; "" when none is.
func (d *Desktop) AppOf(ctx context.Context, pid int) string {
	if pid <= 0 {
		return ""
	}
	d.mu.Lock()
	buses := make([]string, 0, len(d.cache))
	for r := range d.cache {
		buses = append(buses, r.Bus)
	}
	d.mu.Unlock()
	for _, b := range buses {
		if d.appInfo(ctx, b).pid == pid {
			return b
		}
	}
	return ""
}
