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

// A dialog storm is more than stormDialogs JavaScript dialogs from one tab
// within stormWindow: canopy dismisses the rest itself.
const (
	stormDialogs = 5
	stormWindow  = 5 * time.Second
)

// dialogStorm remembers when a tab's recent dialogs opened.
type dialogStorm struct {
	mu    sync.Mutex
	times []time.Time
}

// active reports whether the tab is in a storm now.
func (d *dialogStorm) active(now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, t := range d.times {
		if now.Sub(t) <= stormWindow {
			n++
		}
	}
	return n > stormDialogs
}

// reset forgets the dialogs seen.
func (d *dialogStorm) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.times = nil
}

// seen records a dialog opening at now and reports how many opened within
// the window and whether that is a storm.
func (d *dialogStorm) seen(now time.Time) (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.times = append(d.times, now)
	keep := d.times[:0]
	for _, t := range d.times {
		if now.Sub(t) <= stormWindow {
			keep = append(keep, t)
		}
	}
	d.times = keep
	return len(d.times), len(d.times) > stormDialogs
}
