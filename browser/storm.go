package browser

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// dismiss stops the script that opened the dialog of a storm, then
// answers the dialog. It runs on its own goroutine: the event reader must
// not call CDP.
//
// The script is stopped first, while the dialog holds it: a loop that
// opens dialogs without yielding (for(;;) alert()) would otherwise keep the
// page's main thread busy for good, and a timer chain ends too, as the
// stopped script schedules no next timer. Runtime.terminateExecution ends
// only the script running now; the page's later scripts run as usual.
func (tw *tabWatch) dismiss() {
	t := tw.b.tabByID(tw.id)
	if t == nil || t.ctx == nil {
		return
	}
	ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
	defer cancel()
	target := chromedpTarget(t.ctx)
	// The page answers terminateExecution only once the script has
	// stopped, and the script is held by the dialog: ask without waiting.
	go func() {
		ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
		defer cancel()
		if _, err := cdp.Call(ctx, target, runtime.TerminateExecution, cdp.Empty{}); err != nil {
			tw.b.log.Debug("stop the script of a dialog storm", "err", err)
		}
	}()
	if _, err := cdp.Call(ctx, target, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{}); err != nil {
		tw.b.log.Debug("dismiss a dialog of a storm", "err", err)
	}
}

// A dialog storm is more than stormDialogs JavaScript dialogs from one tab,
// each opening within stormGap of the previous one's answer: the page
// answers an answer with another dialog. canopy dismisses the rest itself.
// The gap is measured from the answer, not from the first dialog, so an
// agent that answers slowly (a loaded machine, a long think) still sees a
// storm for what it is.
const (
	stormDialogs = 5
	stormGap     = 2 * time.Second
)

// dialogStorm counts a tab's dialogs in a row.
type dialogStorm struct {
	mu       sync.Mutex
	streak   int       // dialogs in a row, each soon after the last answer
	opened   time.Time // when the last dialog opened
	answered time.Time // when the last dialog closed; zero while one is open or none was
}

// active reports whether the tab is in a storm now: its streak is past the
// threshold and its last dialog is recent.
func (d *dialogStorm) active(now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	last := d.opened
	if d.answered.After(last) {
		last = d.answered
	}
	return d.streak > stormDialogs && now.Sub(last) <= stormGap
}

// reset forgets the dialogs seen.
func (d *dialogStorm) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.streak, d.opened, d.answered = 0, time.Time{}, time.Time{}
}

// seen records a dialog opening at now and reports how many opened in a
// row and whether that is a storm.
func (d *dialogStorm) seen(now time.Time) (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.streak > 0 && !d.answered.IsZero() && now.Sub(d.answered) <= stormGap {
		d.streak++
	} else {
		d.streak = 1
	}
	d.opened, d.answered = now, time.Time{}
	return d.streak, d.streak > stormDialogs
}

// closed records that the open dialog was answered at now.
func (d *dialogStorm) closed(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answered = now
}
