package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// StuckAfter is how long a page's main thread may take to answer a
// trivial question before canopy calls the page stuck.
const StuckAfter = 5 * time.Second

// ErrUnresponsive marks a page that does not answer: a script that never
// yields (while(true){}), or a renderer that crashed. Navigating or
// reloading recovers the tab, and so does closing it.
var ErrUnresponsive = errors.New("the page does not answer")

// responsive asks the page's main thread for a trivial answer, with its own
// short deadline: a page whose script never yields answers nothing, and
// every read of it would otherwise wait out its caller's whole deadline.
func (b *Browser) responsive(ctx context.Context, tab cdp.Session) error {
	if t := b.curTab(); t != nil && t.watch != nil && t.watch.hasCrashed() {
		return fmt.Errorf("the page in tab %d crashed (navigate or reload opens it again, tabs close closes it): %w", b.curIndex(), ErrUnresponsive)
	}
	// A page found stuck is asked again briefly: the next calls say so at
	// once, and still notice when it answers again.
	tw := b.curTab().watchOrNil()
	limit := StuckAfter
	if tw.isStuck() {
		limit = stuckRecheck
	}
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	_, err := cdp.Call(pctx, tab, runtime.Evaluate, runtime.EvaluateParams{Expression: "0"})
	if err != nil && pctx.Err() != nil && ctx.Err() == nil {
		tw.setStuck(true)
		if tw.isLoading() {
			return fmt.Errorf("the page in tab %d is still loading and has not answered for %s: it may be too big to load quickly (wait, or navigate elsewhere): %w",
				b.curIndex(), StuckAfter, ErrUnresponsive)
		}
		return fmt.Errorf("the page in tab %d has not answered for %s: a script may be stuck (navigate or reload stops it, tabs close closes the tab): %w",
			b.curIndex(), StuckAfter, ErrUnresponsive)
	}
	tw.setStuck(false)
	return nil
}

// stuckRecheck is how long a page already found stuck is given to answer.
const stuckRecheck = 250 * time.Millisecond

// watchOrNil is the tab's watch, or nil for no tab.
func (t *tab) watchOrNil() *tabWatch {
	if t == nil {
		return nil
	}
	return t.watch
}

// isStuck reports whether the tab's page was last found not answering.
func (tw *tabWatch) isStuck() bool {
	if tw == nil {
		return false
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.stuck
}

// setLoading records whether a frame of the tab is loading (the main
// frame's id is the tab's target id).
func (tw *tabWatch) setLoading(frame cdp.FrameID, loading bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if string(frame) == string(tw.id) {
		tw.loading = loading
		return
	}
	if loading {
		if tw.framesLoading == nil {
			tw.framesLoading = map[cdp.FrameID]bool{}
		}
		tw.framesLoading[frame] = true
	} else {
		delete(tw.framesLoading, frame)
	}
}

// subframeLoading reports whether a frame in the tab's process, other than
// the main one, is loading: its document may still be parsed, which the
// observer does not report (kept.go).
func (tw *tabWatch) subframeLoading() bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return len(tw.framesLoading) > 0
}

// isLoading reports whether the tab's main frame is loading.
func (tw *tabWatch) isLoading() bool {
	if tw == nil {
		return false
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.loading
}

// setStuck records whether the tab's page answers.
func (tw *tabWatch) setStuck(stuck bool) {
	if tw == nil {
		return
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.stuck = stuck
}

// unstick stops the script running in the current tab, if the page does
// not answer, so that a navigation or reload can replace the page.
//
// Only a page the last reading found not answering is stopped: the
// executor reads the page before every action, so a stuck one is known by
// now, and a page that answers costs nothing more.
func (b *Browser) unstick(ctx context.Context, tab cdp.Session) {
	t := b.curTab()
	if t == nil || t.watch == nil || t.watch.hasCrashed() || !t.watch.isStuck() {
		return // a crashed tab has no script to stop: it is replaced
	}
	if _, err := cdp.Call(ctx, tab, runtime.TerminateExecution, cdp.Empty{}); err != nil {
		b.log.Debug("stop the stuck script", "err", err)
	}
}
