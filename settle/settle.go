// Package settle decides when a page or an app has gone quiet after an
// action, from the events its source reports — never from a fixed sleep.
//
// A source turns what it hears (CDP network and navigation events, DOM
// mutations, AT-SPI signals) into [Event] values: Busy and Idle bracket
// work in flight (a request, a navigation), Mutation says something changed.
// [Wait] returns once nothing is in flight and no event arrived for a quiet
// window, or at the cap. Work in flight longer than MaxBusy (a long poll, a
// stream, a hung request) stops holding the page busy, so one slow request
// costs MaxBusy, not the whole cap.
package settle

import (
	"context"
	"time"
)

// Kind says what an event means for settling.
type Kind int

// The kinds of events.
const (
	// Busy starts a piece of work named by Key (a request id, a frame
	// loading); the page is not quiet until a matching Idle.
	Busy Kind = iota
	// Idle ends the work named by Key.
	Idle
	// Mutation says something changed; it restarts the quiet window.
	Mutation
	// Block says the page cannot go on without the agent (a JavaScript
	// dialog is open); settling ends at once.
	Block
	// Opened says a window opened on the desktop: work that waits for one
	// (Busy with UntilOpened) is done.
	Opened
)

// Event is one report from a source.
type Event struct {
	Kind Kind
	Key  string
	// UntilOpened, on a Busy event, says the work waits for a window to
	// open rather than for an Idle: a download that asks where to save
	// waits for the Save dialog, which another source (the desktop) sees.
	// Once a window opened during the wait, such work is done at once.
	UntilOpened bool
	// Hold, on a Busy event, is how long this work may hold the page
	// busy, when it is known to take longer than Options.MaxBusy (a
	// browser prompt that shows its window some time after it asked);
	// zero means MaxBusy. The cap still ends the wait.
	Hold time.Duration
}

// Options tune Wait. Zero values take the defaults.
type Options struct {
	// Quiet is how long nothing must happen (default 60 ms).
	Quiet time.Duration
	// Cap is the longest Wait waits (default 3 s).
	Cap time.Duration
	// MaxBusy is how long one piece of work may hold the page busy
	// (default 1 s).
	MaxBusy time.Duration
}

// Defaults used when Options leave a field zero.
const (
	DefaultQuiet   = 60 * time.Millisecond
	DefaultCap     = 3 * time.Second
	DefaultMaxBusy = time.Second
)

func (o Options) withDefaults() Options {
	if o.Quiet <= 0 {
		o.Quiet = DefaultQuiet
	}
	if o.Cap <= 0 {
		o.Cap = DefaultCap
	}
	if o.MaxBusy <= 0 {
		o.MaxBusy = DefaultMaxBusy
	}
	return o
}

// Result says how settling ended.
type Result struct {
	// Waited is the time spent, quiet window included.
	Waited time.Duration `json:"settle_ns"`
	// Quiet is false when the cap ended the wait (or a Block event did).
	Quiet bool `json:"quiet"`
	// Blocked is true when a Block event ended the wait.
	Blocked bool `json:"blocked,omitempty"`
	// Events counts the events seen.
	Events int `json:"events"`
}

// Wait reads events until the source has been quiet for opt.Quiet with no
// work in flight, or opt.Cap passed, or ctx ended, or a Block event came.
// A closed channel counts as quiet from then on.
func Wait(ctx context.Context, events <-chan Event, opt Options) Result {
	opt = opt.withDefaults()
	start := time.Now()
	busy := map[string]time.Time{} // work in flight → when it stops holding the page
	untilOpened := map[string]bool{}
	opened := false // a window opened during this wait
	var res Result
	quietTimer := time.NewTimer(opt.Quiet)
	defer quietTimer.Stop()
	capTimer := time.NewTimer(opt.Cap)
	defer capTimer.Stop()
	// staleTimer fires when the first work in flight stops holding the
	// page (MaxBusy after it started, or its own Hold).
	staleTimer := time.NewTimer(time.Hour)
	defer staleTimer.Stop()
	restartQuiet := func() {
		quietTimer.Reset(opt.Quiet)
	}
	armStale := func() {
		first := time.Time{}
		for _, t := range busy {
			if first.IsZero() || t.Before(first) {
				first = t
			}
		}
		if first.IsZero() {
			staleTimer.Reset(time.Hour)
			return
		}
		staleTimer.Reset(max(time.Until(first), 0))
	}
	for {
		select {
		case <-ctx.Done():
			res.Waited = time.Since(start)
			return res
		case <-capTimer.C:
			res.Waited = time.Since(start)
			return res
		case <-staleTimer.C:
			now := time.Now()
			for k, t := range busy {
				if !now.Before(t) {
					delete(busy, k)
				}
			}
			armStale()
			if len(busy) == 0 {
				restartQuiet()
			}
		case <-quietTimer.C:
			if len(busy) == 0 {
				res.Waited = time.Since(start)
				res.Quiet = true
				return res
			}
		case ev, ok := <-events:
			if !ok {
				events = nil // quiet from now on; the timers decide
				continue
			}
			res.Events++
			switch ev.Kind {
			case Busy:
				if ev.UntilOpened {
					if opened {
						delete(busy, ev.Key)
						armStale()
						break
					}
					untilOpened[ev.Key] = true
				}
				if _, dup := busy[ev.Key]; !dup {
					hold := opt.MaxBusy
					if ev.Hold > 0 {
						hold = ev.Hold
					}
					busy[ev.Key] = time.Now().Add(hold)
					armStale()
				}
			case Idle:
				delete(busy, ev.Key)
				armStale()
			case Opened:
				opened = true
				for k := range untilOpened {
					delete(busy, k)
				}
				clear(untilOpened)
				armStale()
			case Block:
				res.Waited = time.Since(start)
				res.Blocked = true
				return res
			}
			restartQuiet()
		}
	}
}
