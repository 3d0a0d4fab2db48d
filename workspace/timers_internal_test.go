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
// desktop's Flushed, which carries the timer the page's said is pending;
// a page with none pending does not end the desktop's tail.
func TestPageTimersReachTheWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		page settle.Event
		want settle.Event
	}{
		{"a timer pending", settle.Event{Kind: settle.Flushed, Timers: true, Due: 30 * time.Millisecond}, settle.Event{Kind: settle.Flushed, Timers: true, Due: 30 * time.Millisecond}},
		{"none pending", settle.Event{Kind: settle.Flushed, Timers: true, Due: settle.NoTimer}, settle.Event{Kind: settle.Flushed}},
		{"timers not known", settle.Event{Kind: settle.Flushed}, settle.Event{Kind: settle.Flushed}},
	} {
		page := &flushWatch{ch: make(chan settle.Event, 4), answer: tc.page}
		desk := &flushWatch{ch: make(chan settle.Event, 4), answer: settle.Event{Kind: settle.Flushed}}
		m := &merged{events: make(chan settle.Event, 4), done: make(chan struct{}), preview: &previewState{}, page: page, desk: desk}
		m.watchers = append(m.watchers, desk, page)
		m.start()
		m.Flush()
		select {
		case e := <-m.events:
			if e != tc.want {
				t.Errorf("%s: the workspace's answer is %+v, want %+v", tc.name, e, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer to the flush", tc.name)
		}
		m.Stop()
	}
}
