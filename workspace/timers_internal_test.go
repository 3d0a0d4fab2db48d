package workspace

import (
	"testing"
	"time"

	"github.com/canopy-dev/canopy/settle"
)

// flushWatch is a source that answers every flush with answer.
type flushWatch struct {
	ch     chan settle.Event
	answer settle.Event
}

func (f *flushWatch) Events() <-chan settle.Event { return f.ch }
func (f *flushWatch) Stop() ([]string, bool)      { return nil, false }
func (f *flushWatch) Flush()                      { f.ch <- f.answer }

// TestPageTimersReachTheWait: the workspace's round trip ends with the
// desktop's Flushed, which carries what the page's said of the action's
// timers.
func TestPageTimersReachTheWait(t *testing.T) {
	page := &flushWatch{ch: make(chan settle.Event, 4), answer: settle.Event{Kind: settle.Flushed, Timers: true, Due: 30 * time.Millisecond}}
	desk := &flushWatch{ch: make(chan settle.Event, 4), answer: settle.Event{Kind: settle.Flushed}}
	m := &merged{events: make(chan settle.Event, 4), done: make(chan struct{}), preview: &previewState{}, page: page, desk: desk}
	m.watchers = append(m.watchers, desk, page)
	m.start()
	defer m.Stop()
	m.Flush()
	select {
	case e := <-m.events:
		if e.Kind != settle.Flushed || !e.Timers || e.Due != 30*time.Millisecond {
			t.Errorf("the workspace's answer: %+v, want the page's timers", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the flush")
	}
}
