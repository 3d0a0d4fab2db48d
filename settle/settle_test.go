package settle

import (
	"context"
	"testing"
	"time"
)

func TestQuietAtOnce(t *testing.T) {
	res := Wait(context.Background(), make(chan Event), Options{Quiet: 10 * time.Millisecond})
	if !res.Quiet || res.Waited < 10*time.Millisecond || res.Waited > time.Second {
		t.Errorf("no events: %+v", res)
	}
}

func TestBusyHoldsUntilIdle(t *testing.T) {
	ev := make(chan Event)
	go func() {
		ev <- Event{Kind: Busy, Key: "r1"}
		time.Sleep(50 * time.Millisecond) // the test plays a slow request
		ev <- Event{Kind: Mutation}
		ev <- Event{Kind: Idle, Key: "r1"}
	}()
	res := Wait(context.Background(), ev, Options{Quiet: 10 * time.Millisecond})
	if !res.Quiet || res.Waited < 60*time.Millisecond || res.Events != 3 {
		t.Errorf("busy request: %+v", res)
	}
}

func TestStaleWorkStopsHolding(t *testing.T) {
	ev := make(chan Event, 1)
	ev <- Event{Kind: Busy, Key: "poll"}
	res := Wait(context.Background(), ev, Options{Quiet: 10 * time.Millisecond, MaxBusy: 40 * time.Millisecond, Cap: 5 * time.Second})
	if !res.Quiet || res.Waited < 50*time.Millisecond || res.Waited > 2*time.Second {
		t.Errorf("a request that never ends held the page: %+v", res)
	}
}

// TestHold: work that says how long it may hold the page holds it that
// long, past MaxBusy, and an Idle still ends it sooner.
func TestHold(t *testing.T) {
	opt := Options{Quiet: 10 * time.Millisecond, MaxBusy: 20 * time.Millisecond, Cap: 5 * time.Second}
	ev := make(chan Event, 1)
	ev <- Event{Kind: Busy, Key: "prompt", Hold: 300 * time.Millisecond}
	if res := Wait(context.Background(), ev, opt); !res.Quiet || res.Waited < 300*time.Millisecond {
		t.Errorf("work with a hold of 300ms stopped holding at MaxBusy: %+v", res)
	}
	ev = make(chan Event, 2)
	ev <- Event{Kind: Busy, Key: "prompt", Hold: 4 * time.Second}
	ev <- Event{Kind: Idle, Key: "prompt"}
	if res := Wait(context.Background(), ev, opt); !res.Quiet || res.Waited > 2*time.Second {
		t.Errorf("work with a hold held the page after it ended: %+v", res)
	}
}

// TestHoldPastCap: work with a hold past the cap (a prompt that shows its
// window late on a loaded machine) pushes the cap back: the wait ends on
// its Idle, not at the cap.
func TestHoldPastCap(t *testing.T) {
	ev := make(chan Event, 1)
	ev <- Event{Kind: Busy, Key: "prompt", Hold: time.Minute}
	shown := make(chan time.Time, 1)
	go func() {
		time.Sleep(100 * time.Millisecond) // the test plays a prompt that shows late
		shown <- time.Now()
		ev <- Event{Kind: Idle, Key: "prompt"}
	}()
	res := Wait(context.Background(), ev, Options{Quiet: 10 * time.Millisecond, Cap: 20 * time.Millisecond})
	end := time.Now()
	if !res.Quiet {
		t.Errorf("the cap ended the wait before the held work: %+v", res)
	}
	select {
	case at := <-shown:
		if end.Before(at) {
			t.Errorf("the wait ended before the work it held: %+v", res)
		}
	default:
		t.Errorf("the wait ended before the work it held: %+v", res)
	}
}

// TestUntilClosed: work that waits for a window to close holds nothing
// while none closes, and holds the page once one did, until it ends.
func TestUntilClosed(t *testing.T) {
	opt := Options{Quiet: 10 * time.Millisecond, Cap: 20 * time.Millisecond}
	ev := make(chan Event, 1)
	ev <- Event{Kind: Busy, Key: "dl", UntilClosed: true, Hold: time.Minute}
	if res := Wait(context.Background(), ev, opt); !res.Quiet {
		t.Errorf("work waiting for a window to close held the page: %+v", res)
	}

	ev = make(chan Event, 2)
	ev <- Event{Kind: Busy, Key: "dl", UntilClosed: true, Hold: time.Minute}
	ev <- Event{Kind: Closed}
	ended := make(chan time.Time, 1)
	go func() {
		time.Sleep(100 * time.Millisecond) // the test plays a download that ends late
		ended <- time.Now()
		ev <- Event{Kind: Idle, Key: "dl"}
	}()
	res := Wait(context.Background(), ev, opt)
	end := time.Now()
	select {
	case at := <-ended:
		if !res.Quiet || end.Before(at) {
			t.Errorf("the wait ended before the work a closed window started: %+v", res)
		}
	default:
		t.Errorf("the wait ended before the work a closed window started: %+v", res)
	}
}

// TestSlowRoundTrip: a round trip that takes longer than the quiet window
// to answer (a loaded machine) holds the wait until it answers; one that
// fails lets the quiet window end it.
func TestSlowRoundTrip(t *testing.T) {
	opt := Options{Quiet: 10 * time.Millisecond, MaxBusy: time.Minute, Cap: time.Minute, Tail: NoTail}
	ev := make(chan Event, 4)
	answered := make(chan time.Time, 1)
	flush := func() {
		go func() {
			time.Sleep(100 * time.Millisecond) // the test plays a slow page
			answered <- time.Now()
			ev <- Event{Kind: Flushed}
		}()
	}
	ev <- Event{Kind: Mutation}
	res := WaitFlushed(context.Background(), ev, flush, opt)
	end := time.Now()
	select {
	case at := <-answered:
		if !res.Flushed || end.Before(at) {
			t.Errorf("the wait did not end on the slow round trip's answer: %+v", res)
		}
	default:
		t.Errorf("the quiet window ended the wait before the round trip answered: %+v", res)
	}

	ev = make(chan Event, 4)
	failed := func() { ev <- Event{Kind: FlushFailed} }
	if res := WaitFlushed(context.Background(), ev, failed, opt); !res.Quiet || res.Flushed {
		t.Errorf("a failed round trip: %+v, want the quiet window to end the wait", res)
	}
}

// endless sends mutations on ev without pause, as an animation that never
// stops does, until the returned channel is closed.
func endless(ev chan<- Event) chan struct{} {
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case ev <- Event{Kind: Mutation}:
			case <-stop:
				return
			}
		}
	}()
	return stop
}

func TestCap(t *testing.T) {
	ev := make(chan Event)
	stop := endless(ev)
	defer close(stop)
	// Events without pause: an animation that never stops. The quiet
	// window is longer than the cap: a loaded machine that starves the
	// sender for a while does not make the page quiet.
	res := Wait(context.Background(), ev, Options{Quiet: 5 * time.Second, Cap: 100 * time.Millisecond})
	if res.Quiet || res.Waited < 100*time.Millisecond {
		t.Errorf("endless mutations: %+v", res)
	}
}

func TestBlockEndsAtOnce(t *testing.T) {
	ev := make(chan Event, 2)
	ev <- Event{Kind: Busy, Key: "nav"}
	ev <- Event{Kind: Block}
	res := Wait(context.Background(), ev, Options{})
	if !res.Blocked || res.Quiet || res.Waited > time.Second {
		t.Errorf("dialog: %+v", res)
	}
}

func TestClosedChannelIsQuiet(t *testing.T) {
	ev := make(chan Event)
	close(ev)
	if res := Wait(context.Background(), ev, Options{Quiet: 5 * time.Millisecond}); !res.Quiet {
		t.Errorf("closed: %+v", res)
	}
}

func TestContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ev := make(chan Event, 1)
	ev <- Event{Kind: Busy, Key: "x"}
	if res := Wait(ctx, ev, Options{}); res.Quiet {
		t.Errorf("cancelled: %+v", res)
	}
}

// TestUntilOpened: work that waits for a window ends when one opens, before
// or after the work is reported, not at MaxBusy; other work still holds.
func TestUntilOpened(t *testing.T) {
	opt := Options{Quiet: 10 * time.Millisecond, MaxBusy: 10 * time.Second, Cap: 20 * time.Second}
	for _, tc := range []struct {
		name   string
		events []Event
		quiet  bool // settles by itself, without the cap
	}{
		{"opened after", []Event{{Kind: Busy, Key: "dl", UntilOpened: true}, {Kind: Opened}}, true},
		{"opened before", []Event{{Kind: Opened}, {Kind: Busy, Key: "dl", UntilOpened: true}}, true},
		{"idle", []Event{{Kind: Busy, Key: "dl", UntilOpened: true}, {Kind: Idle, Key: "dl"}}, true},
		{"other work holds", []Event{{Kind: Busy, Key: "req"}, {Kind: Busy, Key: "dl", UntilOpened: true}, {Kind: Opened}}, false},
		{"no window", []Event{{Kind: Busy, Key: "dl", UntilOpened: true}}, false},
	} {
		ev := make(chan Event, len(tc.events))
		for _, e := range tc.events {
			ev <- e
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		res := Wait(ctx, ev, opt)
		cancel()
		if res.Quiet != tc.quiet {
			t.Errorf("%s: %+v, want quiet %v", tc.name, res, tc.quiet)
		}
	}
}

// flusher plays a source that answers every flush at once, after the
// events it is given for that round trip.
type flusher struct {
	ev    chan Event
	asked int
	// before[i] are the events the page sends before answering flush i;
	// after[i] are those it sends after answering.
	before, after map[int][]Event
	never         bool // the page never answers
	// timers says the source knows the action's timers: due[i] is when
	// the next fires at flush i (none when absent), every is that for
	// flushes not in due.
	timers bool
	due    map[int]time.Duration
	every  time.Duration
}

func (f *flusher) flush() {
	i := f.asked
	f.asked++
	for _, e := range f.before[i] {
		f.ev <- e
	}
	if !f.never {
		f.ev <- f.answer(i)
	}
	for _, e := range f.after[i] {
		f.ev <- e
	}
}

// answer is the Flushed event of flush i.
func (f *flusher) answer(i int) Event {
	if !f.timers {
		return Event{Kind: Flushed}
	}
	due, ok := f.due[i]
	if !ok {
		due = f.every
	}
	return Event{Kind: Flushed, Timers: true, Due: due}
}

// TestFlushEndsSooner: a source up to date ends the wait a grace after its
// flush, not a quiet window after its last event; the events before the
// answer are covered by it.
func TestFlushEndsSooner(t *testing.T) {
	f := &flusher{ev: make(chan Event, 16), before: map[int][]Event{0: {{Kind: Mutation}, {Kind: Mutation}}}}
	res := WaitFlushed(context.Background(), f.ev, f.flush, Options{Quiet: 10 * time.Second, Grace: time.Millisecond})
	if !res.Quiet || !res.Flushed || res.Waited > 5*time.Second || f.asked != 1 || res.Events != 2 {
		t.Errorf("flushed: %+v after %d flushes", res, f.asked)
	}
}

// TestFlushAgainAfterEvent: an event after a flush's answer needs another
// flush.
func TestFlushAgainAfterEvent(t *testing.T) {
	f := &flusher{ev: make(chan Event, 16), after: map[int][]Event{0: {{Kind: Mutation}}, 1: {{Kind: Mutation}}}}
	res := WaitFlushed(context.Background(), f.ev, f.flush, Options{Quiet: 10 * time.Second, Grace: 200 * time.Millisecond})
	if !res.Flushed || f.asked != 3 {
		t.Errorf("events after the answers: %+v after %d flushes, want 3", res, f.asked)
	}
}

// TestFlushWaitsForWork: work in flight holds the wait whatever the
// flushes say; its end asks for another.
func TestFlushWaitsForWork(t *testing.T) {
	ev := make(chan Event, 16)
	idle := make(chan struct{})
	f := &flusher{ev: ev, before: map[int][]Event{0: {{Kind: Busy, Key: "req"}}}}
	flush := func() {
		f.flush()
		if f.asked == 1 {
			close(idle) // the request ends once the first answer is in
		}
	}
	go func() {
		<-idle
		ev <- Event{Kind: Idle, Key: "req"}
	}()
	res := WaitFlushed(context.Background(), ev, flush, Options{Quiet: 10 * time.Second, Grace: time.Millisecond})
	if !res.Flushed || f.asked != 2 || res.Events != 2 {
		t.Errorf("request: %+v after %d flushes, want 2", res, f.asked)
	}
}

// TestFlushUnanswered: a page that does not answer (a script in a loop)
// ends on the quiet window, as without flushes.
func TestFlushUnanswered(t *testing.T) {
	f := &flusher{ev: make(chan Event, 16), never: true}
	res := WaitFlushed(context.Background(), f.ev, f.flush, Options{Quiet: 20 * time.Millisecond, Grace: time.Millisecond})
	if !res.Quiet || res.Flushed || res.Waited < 20*time.Millisecond || f.asked != 1 {
		t.Errorf("unanswered: %+v after %d flushes", res, f.asked)
	}
}

// TestSlowEndsOnQuiet: after a Slow event (a navigation) flushes no longer
// end the wait.
func TestSlowEndsOnQuiet(t *testing.T) {
	f := &flusher{ev: make(chan Event, 16), before: map[int][]Event{0: {{Kind: Slow}}}}
	res := WaitFlushed(context.Background(), f.ev, f.flush, Options{Quiet: 30 * time.Millisecond, Grace: time.Millisecond})
	if !res.Quiet || res.Flushed || res.Waited < 30*time.Millisecond {
		t.Errorf("slow: %+v", res)
	}
}

// TestFlushCap: a page that never stops changing ends at the cap, however
// fast it answers.
func TestFlushCap(t *testing.T) {
	ev := make(chan Event, 4)
	stop := endless(ev)
	defer close(stop)
	flush := func() {
		go func() {
			select {
			case ev <- Event{Kind: Flushed}:
			case <-stop:
			}
		}()
	}
	// The quiet window and the grace outlast the cap: a loaded machine
	// that starves the sender for a while does not make the page quiet.
	res := WaitFlushed(context.Background(), ev, flush, Options{Quiet: 5 * time.Second, Grace: 5 * time.Second, Cap: 100 * time.Millisecond})
	if res.Quiet || res.Waited < 100*time.Millisecond {
		t.Errorf("endless mutations: %+v", res)
	}
}

// TestFlushIncidental: while every event is incidental (the focus moving
// to the element acted on), the first flush's answer asks for a second
// round trip; an effect ends the wait on the first.
func TestFlushIncidental(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before []Event
		want   int
	}{
		{"nothing", nil, 2},
		{"focus only", []Event{{Kind: Mutation, Incidental: true}}, 2},
		{"an effect", []Event{{Kind: Mutation, Incidental: true}, {Kind: Mutation}}, 1},
	} {
		f := &flusher{ev: make(chan Event, 16), before: map[int][]Event{0: tc.before}}
		res := WaitFlushed(context.Background(), f.ev, f.flush, Options{Quiet: 10 * time.Second, Grace: time.Millisecond})
		if !res.Flushed || f.asked != tc.want {
			t.Errorf("%s: %+v after %d flushes, want %d", tc.name, res, f.asked, tc.want)
		}
	}
}

// TestTail: after an effect the wait lasts the tail past it, flushed or
// not; NoTail ends it a grace after the flush, unless a window opened.
func TestTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tail   time.Duration
		events []Event
		min    time.Duration
		max    time.Duration
	}{
		{"a tail", 150 * time.Millisecond, []Event{{Kind: Mutation}}, 150 * time.Millisecond, 5 * time.Second},
		{"no tail", NoTail, []Event{{Kind: Mutation}}, 0, DefaultTail - 5*time.Millisecond},
		{"no tail, a window opened", NoTail, []Event{{Kind: Opened}, {Kind: Mutation}}, DefaultTail, 5 * time.Second},
	} {
		f := &flusher{ev: make(chan Event, 16), before: map[int][]Event{0: tc.events}}
		start := time.Now()
		res := WaitFlushed(context.Background(), f.ev, f.flush, Options{Quiet: 10 * time.Second, Grace: time.Millisecond, Tail: tc.tail})
		if took := time.Since(start); !res.Flushed || took < tc.min || took > tc.max {
			t.Errorf("%s: %+v in %v, want between %v and %v", tc.name, res, took, tc.min, tc.max)
		}
	}
}

// TestFollowTimer: a flush that says a timer the action set is pending
// does not end the wait: it flushes again once the timer is due, past the
// quiet window if need be, and then ends without a tail.
func TestFollowTimer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		quiet time.Duration
		due   time.Duration
	}{
		{"a short timer", 10 * time.Second, 40 * time.Millisecond},
		{"a timer past the quiet window", 20 * time.Millisecond, 80 * time.Millisecond},
	} {
		f := &flusher{ev: make(chan Event, 16), before: map[int][]Event{0: {{Kind: Mutation}}}, timers: true, due: map[int]time.Duration{0: tc.due}, every: NoTimer}
		start := time.Now()
		res := WaitFlushed(context.Background(), f.ev, f.flush, Options{Quiet: tc.quiet, Grace: time.Millisecond, Tail: time.Second})
		if took := time.Since(start); !res.Flushed || res.Followed != 1 || f.asked != 2 || took < tc.due || took > tc.due+500*time.Millisecond {
			t.Errorf("%s: %+v in %v after %d flushes, want 2 flushes, the second after %v, and no tail", tc.name, res, took, f.asked, tc.due)
		}
	}
}

// TestFollowBounded: a page whose every answer has another timer pending
// (a loop the action started) is followed Options.Follow times, then the
// wait ends, far from the cap.
func TestFollowBounded(t *testing.T) {
	f := &flusher{ev: make(chan Event, 16), before: map[int][]Event{0: {{Kind: Mutation}}}, timers: true, every: 5 * time.Millisecond}
	res := WaitFlushed(context.Background(), f.ev, f.flush, Options{Quiet: 10 * time.Second, Grace: time.Millisecond, Follow: 3})
	if !res.Flushed || res.Followed != 3 || f.asked != 4 || res.Waited > time.Second {
		t.Errorf("endless timers: %+v after %d flushes, want 3 followed", res, f.asked)
	}
}

// TestTimersNoTail: a flush that knows the action's timers, none pending,
// ends the wait a grace after it, whatever the tail; one that does not
// know them keeps the tail.
func TestTimersNoTail(t *testing.T) {
	for _, timers := range []bool{true, false} {
		f := &flusher{ev: make(chan Event, 16), before: map[int][]Event{0: {{Kind: Mutation}}}, timers: timers, every: NoTimer}
		res := WaitFlushed(context.Background(), f.ev, f.flush, Options{Quiet: 10 * time.Second, Grace: time.Millisecond, Tail: 150 * time.Millisecond})
		if tail := res.Waited >= 150*time.Millisecond; !res.Flushed || tail == timers || res.Followed != 0 {
			t.Errorf("timers known %v: %+v", timers, res)
		}
	}
}
