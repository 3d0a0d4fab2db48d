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

func TestCap(t *testing.T) {
	ev := make(chan Event)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case ev <- Event{Kind: Mutation}:
			case <-stop:
				return
			}
		}
	}()
	// Events without pause: an animation that never stops.
	res := Wait(context.Background(), ev, Options{Quiet: 50 * time.Millisecond, Cap: 100 * time.Millisecond})
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
