package desktop

import (
	"context"
	"sync"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/settle"
)

// watch turns the listener's events into settle events while one action
// runs: every event is activity; busy states bracket work in flight.
type watch struct {
	events  chan settle.Event
	unsub   func()
	done    chan struct{}
	stopped chan struct{} // closed when loop has returned
	once    sync.Once
	prompts prompts // only loop touches it until stopped
}

// Watch starts collecting the desktop's events for one action.
func (d *Desktop) Watch(ctx context.Context) (session.Watcher, error) {
	ch, unsub := d.events.Subscribe()
	w := &watch{
		events: make(chan settle.Event, 4096), unsub: unsub, done: make(chan struct{}), stopped: make(chan struct{}),
		prompts: prompts{conn: d.conn, shown: d.promptShown, classes: map[atspi.Ref]string{}},
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
			ev := settle.Event{Kind: settle.Mutation}
			switch {
			case e.Type == "object:state-changed:busy":
				ev = settle.Event{Kind: settle.Idle, Key: e.Source.String()}
				if e.Detail1 == 1 {
					ev.Kind = settle.Busy
				}
			case opensWindow(e):
				ev = settle.Event{Kind: settle.Opened}
			default:
				if pe, ok := w.prompts.event(e); ok {
					ev = pe
				}
			}
			select {
			case w.events <- ev:
			default:
			}
		}
	}
}

// Events feeds the settler.
func (w *watch) Events() <-chan settle.Event { return w.events }

// Stop ends the watch. The diff names the windows and dialogs that opened
// or closed; the one outcome line of the desktop's own says a permission
// prompt came up (see prompts).
func (w *watch) Stop() ([]string, bool) {
	w.once.Do(func() {
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
