package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
)

// TestCrashedTab: a renderer that crashes makes the next reading fail at
// once with one line that says so; navigate opens a page again in the
// same tab, and the browser itself was never in question.
func TestCrashedTab(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/login.html")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	crashed := make(chan struct{})
	go func() {
		defer close(crashed)
		_, _ = cdp.Call(ctx, chromedpTarget(b.tabCtx()), page.Crash, cdp.Empty{}) // answers nothing: the renderer is gone
	}()
	waitFor(t, "the crash to be seen", func() bool { return b.curTab().watch.hasCrashed() })
	start := time.Now()
	_, _, err := b.Snapshot(ctx, SnapshotOptions{})
	if !errors.Is(err, ErrUnresponsive) || !strings.Contains(err.Error(), "crashed") || time.Since(start) > time.Second {
		t.Errorf("snapshot of a crashed tab after %v: %v", time.Since(start), err)
	}
	if !b.Alive(ctx) {
		t.Errorf("the browser is taken for dead")
	}
	p, err := policy.New(action.Act).Permit(ctx, policy.Request{Action: action.Action{Kind: action.Navigate, URL: testSite.URL("/todo.html")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Do(ctx, p, action.Action{Kind: action.Navigate, URL: testSite.URL("/todo.html")}, nil, nil); err != nil {
		t.Fatalf("navigate in the crashed tab: %v", err)
	}
	snap, _, err := b.Snapshot(ctx, SnapshotOptions{})
	if err != nil || !strings.Contains(snap.Header.Title, "Todo") {
		t.Errorf("after navigating: %v, %+v", err, snap)
	}
}

// waitFor polls cond until it holds, failing after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}
