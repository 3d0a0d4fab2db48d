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
//
// A source that can prove it is up to date ends sooner ([WaitFlushed]): on
// request it makes a round trip to the page or app (a task in the page, a
// D-Bus call to the app) and reports a [Flushed] event once the answer is
// back, after every event the page or app sent before answering. The work
// the action caused is then reported, and the wait ends a short grace
// after that, when nothing is in flight — not a whole quiet window after
// the last event. A source that also knows the timers the action set (a
// page's setTimeout) says when the next fires, on its Flushed event: the
// wait follows such timers, a few at most, and flushes again after each.
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
	// Flushed answers a flush (see [WaitFlushed]): the page or app has
	// answered a round trip, and every event it sent before answering came
	// before this one. It is not activity.
	Flushed
	// Slow says the page started work a flush cannot follow (a navigation,
	// which the browser takes over; a new tab): this wait ends on the
	// quiet window, not on a flush.
	Slow
	// Closed says a window closed on the desktop: work that waits for one
	// (Busy with UntilClosed) holds the page from now on.
	Closed
	// FlushFailed answers a flush that could not make its round trip (the
	// page navigated, the app went away): the wait asks no more and ends
	// on the quiet window. It is not activity.
	FlushFailed
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
	// UntilClosed, on a Busy event, says the work holds the page only
	// once a window closed during the wait (a Closed event): a download
	// whose Save dialog is up ends when the dialog closes, some time
	// after; an action that types into the dialog does not wait for it.
	UntilClosed bool
	// Hold, on a Busy event, is how long this work may hold the page
	// busy, when it is known to take longer than Options.MaxBusy (a
	// browser prompt that shows its window some time after it asked);
	// zero means MaxBusy. Such work ends on an event (the window
	// showing), so its Hold is a cap a loaded machine does not outrun:
	// the wait's cap is pushed back to cover it.
	Hold time.Duration
	// Incidental, on a Mutation, says the change comes with any action
	// rather than being its effect: the focus moved to the element acted
	// on; on a Busy event with Since, that the work is older than the
	// action. See WaitFlushed.
	Incidental bool
	// Since, on a Busy event, is when the work began, when that was
	// before the wait (a request in flight when the watch started): it
	// holds the page until Since plus its hold, so work older than
	// MaxBusy holds nothing. Zero means now.
	Since time.Time
	// Timers, on a Flushed event, says the source knows the timers the
	// action set (a page's setTimeout calls since it began), so the wait
	// needs no Options.Tail: Due says when the next of them fires.
	Timers bool
	// Due, on a Flushed event with Timers, is how long until the next
	// timer the action set fires (zero: it is due now); NoTimer when none
	// is pending.
	Due time.Duration
}

// NoTimer is an Event.Due that says no timer the action set is pending.
const NoTimer time.Duration = -1

// Options tune Wait. Zero values take the defaults.
type Options struct {
	// Quiet is how long nothing must happen (default 60 ms).
	Quiet time.Duration
	// Cap is the longest Wait waits (default 3 s).
	Cap time.Duration
	// MaxBusy is how long one piece of work may hold the page busy
	// (default 1 s).
	MaxBusy time.Duration
	// Grace is how long nothing must happen after a flush proved the
	// source up to date (default 5 ms): the page's short timers and the
	// effects of its last events that the round trip did not wait for.
	Grace time.Duration
	// Tail is how long after the action's last effect the wait lasts at
	// least, flushed or not (default 40 ms): what a page schedules a
	// little later than its first effect (Swagger UI renders an expanded
	// operation's body after a 35 ms debounce) comes in. A flushed wait
	// without effects (a no-op) does not wait for it. NoTail (negative)
	// waits for no tail, except after a window opened (an Opened event),
	// which gets the default. A Flushed event that knows the action's
	// timers (Event.Timers) needs no tail.
	Tail time.Duration
	// Follow is how many of the action's timers a wait follows at most
	// (default 8): it waits for each to fire (Event.Due) and flushes
	// again. A page whose timers keep setting timers (a polling loop the
	// action started) does not hold the wait longer.
	Follow int
}

// Defaults used when Options leave a field zero.
const (
	DefaultQuiet   = 60 * time.Millisecond
	DefaultCap     = 3 * time.Second
	DefaultMaxBusy = time.Second
	DefaultGrace   = 5 * time.Millisecond
	DefaultTail    = 40 * time.Millisecond
	DefaultFollow  = 8
	// NoTail is a Tail of none: a source whose round trip proves its
	// effects in (Options.Tail).
	NoTail time.Duration = -1
)

// followSlack is how long after a followed timer is due the next flush
// starts.
const followSlack = time.Millisecond

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
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Tail == 0 {
		o.Tail = DefaultTail
	}
	if o.Follow <= 0 {
		o.Follow = DefaultFollow
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
	// Events counts the events seen (flushes apart).
	Events int `json:"events"`
	// Flushed is true when a flush ended the wait (see [WaitFlushed])
	// rather than the quiet window.
	Flushed bool `json:"flushed,omitempty"`
	// Followed counts the timers the wait waited for (Event.Due).
	Followed int `json:"followed,omitempty"`
}

// Wait reads events until the source has been quiet for opt.Quiet with no
// work in flight, or opt.Cap passed, or ctx ended, or a Block event came.
// A closed channel counts as quiet from then on.
func Wait(ctx context.Context, events <-chan Event, opt Options) Result {
	return WaitFlushed(ctx, events, nil, opt)
}

// WaitFlushed is [Wait] for a source that can prove it is up to date. flush
// asks the source for a round trip to the page or app; the source reports
// a Flushed event on events once the answer is back, or nothing when the
// round trip failed. flush must not block. WaitFlushed asks at once (the
// action has been dispatched) and again after every later event, one round
// trip at a time, while nothing is in flight. It returns opt.Grace after a
// Flushed event that no other event followed, with nothing in flight — the
// second such event while every event so far was Incidental (an action
// whose whole effect comes later has shown nothing yet), and no sooner than
// opt.Tail after the last event that was not, unless the Flushed event knew
// the action's timers (Event.Timers). A Flushed event that says a timer the
// action set is pending (Event.Due) does not end the wait: WaitFlushed
// waits until the timer is due and flushes again, for opt.Follow timers at
// most. Like Wait, it also returns after opt.Quiet without events — once
// no round trip is on its way (a loaded machine may take longer than the
// window to answer one), or one has been for opt.MaxBusy (a page that does
// not answer), or after a Slow or FlushFailed event — or at the cap. A nil
// flush is Wait.
func WaitFlushed(ctx context.Context, events <-chan Event, flush func(), opt Options) Result {
	opt = opt.withDefaults()
	start := time.Now()
	busy := map[string]time.Time{} // work in flight → when it stops holding the page
	untilOpened := map[string]bool{}
	opened := false                       // a window opened during this wait
	dormant := map[string]time.Duration{} // UntilClosed work → its hold, until a window closes
	closed := false                       // a window closed during this wait
	var res Result
	quietTimer := time.NewTimer(opt.Quiet)
	defer quietTimer.Stop()
	deadline := start.Add(opt.Cap) // pushed back by a Busy event's Hold
	capTimer := time.NewTimer(opt.Cap)
	defer capTimer.Stop()
	// staleTimer fires when the first work in flight stops holding the
	// page (MaxBusy after it started, or its own Hold).
	staleTimer := time.NewTimer(time.Hour)
	defer staleTimer.Stop()
	// graceTimer runs from a Flushed event that no event followed.
	graceTimer := time.NewTimer(time.Hour)
	graceTimer.Stop()
	defer graceTimer.Stop()
	// followTimer runs until a timer the action set is due (Event.Due).
	followTimer := time.NewTimer(time.Hour)
	followTimer.Stop()
	defer followTimer.Stop()
	following := false       // followTimer runs: a timer the action set is not due yet
	pending := false         // a flush was asked for and has not answered
	var askedAt time.Time    // when the pending flush was asked for
	covered := false         // a flush answered after the last event
	effect := false          // an event came that was not incidental
	var lastEffect time.Time // when the last such event came
	again := false           // a second round trip was asked for, for want of one
	timed := false           // the last clean flush knew the action's timers
	restartQuiet := func() {
		quietTimer.Reset(opt.Quiet)
	}
	// ask starts a round trip unless one is under way, work is in flight
	// (its end asks again), or flushing stopped (flush nil after Slow).
	ask := func() {
		if flush != nil && !pending && len(busy) == 0 {
			pending, askedAt = true, time.Now()
			flush()
		}
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
	ask()
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
				covered = false
				ask()
			}
		case <-quietTimer.C:
			if len(events) > 0 {
				// Events wait to be read (this loop fell behind):
				// not quiet.
				restartQuiet()
				continue
			}
			if following || covered {
				// The timer being followed fired too, late (a loaded
				// machine): its case flushes again first. Or a round
				// trip answered: the grace (and the tail) end the wait.
				continue
			}
			if pending && flush != nil && time.Since(askedAt) < opt.MaxBusy {
				// The round trip is on its way: a loaded machine can take
				// longer than the window to answer it. It holds the wait
				// like work in flight, for MaxBusy at most (a page that
				// does not answer).
				quietTimer.Reset(min(opt.Quiet, opt.MaxBusy-time.Since(askedAt)))
				continue
			}
			if len(busy) == 0 {
				res.Waited = time.Since(start)
				res.Quiet = true
				return res
			}
		case <-followTimer.C:
			// The timer is due: flush again, with a quiet window of its
			// own for the source to answer in.
			following = false
			res.Followed++
			restartQuiet()
			ask()
		case <-graceTimer.C:
			tail := opt.Tail
			if timed {
				tail = NoTail
			}
			if opened {
				// A window that just opened sets its focus and first
				// layout on its own schedule, after its round trip.
				tail = max(tail, DefaultTail)
			}
			if wait := tail - time.Since(lastEffect); effect && wait > 0 {
				graceTimer.Reset(wait) // a later effect stops it (covered = false)
				continue
			}
			if covered && len(busy) == 0 && len(events) == 0 {
				res.Waited = time.Since(start)
				res.Quiet, res.Flushed = true, true
				return res
			}
		case ev, ok := <-events:
			if !ok {
				events = nil // quiet from now on; the timers decide
				continue
			}
			if ev.Kind == FlushFailed {
				pending, flush = false, nil
				continue
			}
			if ev.Kind == Flushed {
				pending = false
				switch {
				case flush == nil:
				case ev.Timers && ev.Due >= 0 && res.Followed < opt.Follow:
					// A timer the action set fires later: flush again
					// once it is due. The source answered: the quiet
					// window runs from then.
					followTimer.Reset(ev.Due + followSlack)
					following = true
					quietTimer.Reset(ev.Due + opt.Quiet)
				case !effect && !again:
					// Nothing but the incidental yet: the action's
					// effect may be a task and a frame away (two
					// frames). One more round trip.
					followTimer.Stop()
					following = false
					again = true
					ask()
				default:
					followTimer.Stop()
					following = false
					timed = ev.Timers
					covered = true
					graceTimer.Reset(opt.Grace)
				}
				continue
			}
			res.Events++
			if !ev.Incidental {
				effect, lastEffect = true, time.Now()
			}
			covered = false
			graceTimer.Stop()
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
				if ev.UntilClosed && !closed {
					if _, dup := busy[ev.Key]; !dup {
						dormant[ev.Key] = ev.Hold
					}
					break
				}
				if _, dup := busy[ev.Key]; !dup {
					hold := opt.MaxBusy
					if ev.Hold > 0 {
						hold = ev.Hold
					}
					began := time.Now()
					if !ev.Since.IsZero() && ev.Since.Before(began) {
						began = ev.Since
					}
					end := began.Add(hold)
					busy[ev.Key] = end
					armStale()
					if ev.Hold > 0 && end.After(deadline) {
						deadline = end
						capTimer.Reset(time.Until(deadline))
					}
				}
			case Idle:
				delete(busy, ev.Key)
				delete(dormant, ev.Key)
				armStale()
			case Closed:
				closed = true
				for k, hold := range dormant {
					if hold <= 0 {
						hold = opt.MaxBusy
					}
					end := time.Now().Add(hold)
					busy[k] = end
					if end.After(deadline) {
						deadline = end
						capTimer.Reset(time.Until(deadline))
					}
				}
				clear(dormant)
				armStale()
			case Opened:
				opened = true
				for k := range untilOpened {
					delete(busy, k)
				}
				clear(untilOpened)
				armStale()
			case Slow:
				flush = nil
			case Block:
				res.Waited = time.Since(start)
				res.Blocked = true
				return res
			}
			restartQuiet()
			ask()
		}
	}
}
