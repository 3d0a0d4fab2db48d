//go:build linux

package desktop

import (
	"time"

	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/settle"
)

// watch turns the listener's events into settle events while one action
// runs: every event is activity; busy states bracket work in flight.
type watch struct {
	d       *Desktop
	events  chan settle.Event
	unsub   func()
	done    chan struct{}
	stopped chan struct{} // closed when loop has returned
	once    sync.Once
	prompts prompts // only loop touches it until stopped
	// ctx ends when the watch stops: the flushes' round trips end with it.
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	sent  int             // events sent to the settler
	buses map[string]bool // applications that sent events
	// marks are the barriers under way, by token: loop sends each the
	// count of events sent before it. Round trips may overlap (a wait
	// step settles more than once on one watch).
	marks map[string]chan int
}

// Watch starts collecting the desktop's events for one action.
func (d *Desktop) Watch(ctx context.Context) (session.Watcher, error) {
	ch, unsub := d.events.Subscribe()
	wctx, cancel := context.WithCancel(ctx)
	w := &watch{
		d: d, events: make(chan settle.Event, 4096), unsub: unsub, done: make(chan struct{}), stopped: make(chan struct{}),
		prompts: prompts{conn: d.conn, shown: d.promptShown, classes: map[atspi.Ref]string{}, windows: &d.browserWindows},
		ctx:     wctx, cancel: cancel, buses: map[string]bool{}, marks: map[string]chan int{},
	}
	go w.loop(ch)
	return w, nil
}

func (w *watch) loop(ch <-chan atspi.Event) {
	defer close(w.stopped)
	for {
		select {
		case <-w.done:
			return
		case e := <-ch:
			if e.Type == atspi.BarrierEvent {
				token, _ := e.Data.(string)
				w.mu.Lock()
				if ch, ok := w.marks[token]; ok {
					ch <- w.sent // buffered: never blocks
					delete(w.marks, token)
				}
				w.mu.Unlock()
				continue
			}
			ev := settle.Event{Kind: settle.Mutation}
			switch {
			case e.Type == "object:state-changed:busy":
				ev = settle.Event{Kind: settle.Idle, Key: e.Source.String()}
				if e.Detail1 == 1 {
					ev.Kind = settle.Busy
				}
			case opensWindow(e):
				ev = settle.Event{Kind: settle.Opened}
			case closesWindow(e):
				ev = settle.Event{Kind: settle.Closed}
			case e.Type == "object:state-changed:focused" || strings.HasPrefix(e.Type, "focus:"):
				// Focus comes with any click: not the action's effect.
				ev.Incidental = true
			default:
				if pe, ok := w.prompts.event(e); ok {
					ev = pe
				}
			}
			w.mu.Lock()
			w.sent++
			w.buses[e.Source.Bus] = true
			w.mu.Unlock()
			select {
			case w.events <- ev:
			default:
			}
		}
	}
}

// SettleTail is none (session.Tailer): an application has applied what an
// action did by the time it answers the round trip of a flush. (A delay of
// its own, as a search entry's 150 ms, is longer than any tail.)
func (w *watch) SettleTail() time.Duration { return settle.NoTail }

// barriers numbers the desktop's barriers, for their tokens.
var barriers atomic.Int64

// Flush makes round trips (settle.WaitFlushed) to the application acted on
// and to those that sent events, until one saw no event come between its
// start and its answer, and reports settle.Flushed then — once the
// desktop's own listener, which tells snapshots what to read again, has
// seen those events too. A failed round trip (an application that does not
// answer before the watch stops) reports settle.FlushFailed.
func (w *watch) Flush() {
	go func() {
		for w.ctx.Err() == nil {
			token := "desktop:" + strconv.FormatInt(barriers.Add(1), 10)
			marked := make(chan int, 1)
			w.mu.Lock()
			w.marks[token] = marked
			start := w.sent
			buses := make([]string, 0, len(w.buses)+1)
			for b := range w.buses {
				buses = append(buses, b)
			}
			w.mu.Unlock()
			if b := w.d.actedOn(); b != "" && !slices.Contains(buses, b) {
				buses = append(buses, b)
			}
			tracked := w.d.expectBarrier(token)
			sent, err := w.barrier(buses, token, marked, tracked)
			if err != nil {
				w.d.forgetBarrier(token)
				w.mu.Lock()
				delete(w.marks, token)
				w.mu.Unlock()
				w.d.log.Debug("desktop: flush", "err", err)
				select {
				case w.events <- settle.Event{Kind: settle.FlushFailed}:
				default:
				}
				return
			}
			if sent == start {
				select {
				case w.events <- settle.Event{Kind: settle.Flushed}:
				default:
				}
				return
			}
		}
	}()
}

// Include adds an application to those the flushes make round trips to
// (the workspace's browser, whose prompts follow a page's request).
func (w *watch) Include(bus string) {
	if bus == "" {
		return
	}
	w.mu.Lock()
	w.buses[bus] = true
	w.mu.Unlock()
}

// barrier makes one round trip and waits until both loop and the
// desktop's own listener passed its barrier event on; it returns the count
// of events loop had sent by then.
func (w *watch) barrier(buses []string, token string, marked <-chan int, tracked <-chan struct{}) (int, error) {
	if err := w.d.events.Barrier(w.ctx, buses, token); err != nil {
		return 0, err
	}
	var sent int
	select {
	case sent = <-marked:
	case <-w.ctx.Done():
		return 0, w.ctx.Err()
	}
	select {
	case <-tracked:
	case <-w.ctx.Done():
		return 0, w.ctx.Err()
	}
	return sent, nil
}

// Events feeds the settler.
func (w *watch) Events() <-chan settle.Event { return w.events }

// Stop ends the watch. The diff names the windows and dialogs that opened
// or closed; the one outcome line of the desktop's own says a permission
// prompt came up (see prompts).
func (w *watch) Stop() ([]string, bool) {
	w.once.Do(func() {
		w.cancel()
		w.unsub()
		close(w.done)
	})
	<-w.stopped
	if line := w.prompts.outcome(); line != "" {
		return []string{line}, false
	}
	return nil, false
}

// opensWindow says whether an event announces a new top-level window: a
// window created (GTK 3, Chromium), or a child added to an application's
// root or to the desktop's (a new application: GTK 4 sends no
// window:create).
func opensWindow(e atspi.Event) bool {
	return e.Type == "window:create" ||
		e.Type == "object:children-changed:add" && e.Source.Path == atspi.Root.Path
}

// closesWindow says whether an event is a window closing: destroyed, or
// taken off its application's root.
func closesWindow(e atspi.Event) bool {
	return e.Type == "window:destroy" ||
		e.Type == "object:children-changed:remove" && e.Source.Path == atspi.Root.Path
}
