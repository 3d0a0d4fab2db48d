package workspace

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// The print preview on the desktop. A page that calls window.print() in a
// headful browser opens Chromium's print preview: a window nested in the
// browser window, drawn with web content (chrome://print), which the
// desktop reads over AT-SPI (no CDP tab shows it). While it is up, the
// page is held (its script waits in print()) and Chromium shows the
// browser window's content as the preview alone.
//
// The browser says the page asked to print (browser.PreviewOutcome) as
// soon as the page's beforeprint reaches it — which may be after the
// input that caused it returned — before the preview is drawn, and ends
// the settle there (a Block). In the workspace the preview is on the
// desktop: the merged watch turns that Block into work in flight, waits
// on the desktop for the preview's controls, and the reply holds them.

// previewWait caps how long an action waits for the print preview to show
// on the desktop after the page asked to print. The wait ends when it
// shows (about half a second on a quiet machine); the cap is one a loaded
// machine does not outrun, and it pushes the settle's cap back (see
// settle.Event.Hold).
const previewWait = 10 * time.Second

// previewURL is the address of the print preview's document.
const previewURL = "chrome://print/"

// noPreview replaces the preview's outcome line when none showed.
var noPreview = fmt.Sprintf("the page asked to print, but no print preview showed on the desktop within %s", previewWait)

// previewState remembers, for one action, that the page asked to print
// and no preview showed.
type previewState struct {
	mu     sync.Mutex
	missed bool
}

func (p *previewState) set(missed bool) {
	p.mu.Lock()
	p.missed = missed
	p.mu.Unlock()
}

// take returns whether the preview was missed, and forgets it.
func (p *previewState) take() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.missed
	p.missed = false
	return m
}

// awaitPreview waits, on the desktop's events, until a snapshot of the
// desktop shows the print preview with its controls; false when it did
// not within previewWait.
func (w *Workspace) awaitPreview(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, previewWait)
	defer cancel()
	dw, err := w.desk.Watch(ctx)
	if err != nil {
		return false
	}
	defer dw.Stop()
	for {
		if w.previewShown(ctx) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-dw.Events():
		}
		// One snapshot for a burst of events: take what queued meanwhile.
		for drained := false; !drained; {
			select {
			case <-dw.Events():
			default:
				drained = true
			}
		}
	}
}

// previewShown reads the desktop and reports whether it shows the print
// preview's document with its controls drawn: a combo box (the
// destination) and a button that is not disabled.
func (w *Workspace) previewShown(ctx context.Context) bool {
	snap, err := w.desk.Snapshot(ctx, false)
	if err != nil {
		return false
	}
	shown := false
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		if shown {
			return false
		}
		uri, ok := w.desk.WebDialog(ctx, n)
		if !ok {
			return true
		}
		if strings.HasPrefix(uri, previewURL) {
			shown = hasControls(n)
		}
		return false
	})
	return shown
}

// hasControls reports whether n holds its controls ready: combo boxes
// (the destination among them), none of them disabled, and a button that
// is not. While the preview loads, Chromium shows its controls disabled,
// one by one, and the destination's comes last (on a loaded machine a
// snapshot caught them half drawn, with "More settings" already enabled).
func hasControls(n *tree.Node) bool {
	combo, button, loading := false, false, false
	tree.Walk(n, func(c *tree.Node) bool {
		switch c.Role {
		case "combobox":
			combo = true
			loading = loading || c.States.Has(tree.Disabled)
		case "button":
			button = button || !c.States.Has(tree.Disabled)
		}
		return !loading
	})
	return combo && button && !loading
}

// heldByPreview reports whether the print preview holds the page and
// Chromium shows no tab document for it: the page is left out of the tree
// until the preview closes (its refs stay valid).
func (w *Workspace) heldByPreview(b *browser.Browser, snap *tree.Snapshot) bool {
	if !b.PreviewOpen() {
		return false
	}
	shows := false
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		shows = shows || w.desk.IsWebDocument(n)
		return !shows
	})
	return !shows
}

// isPreview says whether e is the browser's Block for the print preview:
// in the workspace the preview is a window on the desktop, so the action
// settles on it rather than ending at the request.
func isPreview(e settle.Event) bool {
	return e.Kind == settle.Block && e.Key == browser.PreviewKey
}

// previewAsked starts, once per action, the wait for the print preview on
// the desktop, and returns the event that holds the action meanwhile:
// work in flight until the preview shows (an Idle then) or previewWait
// passes (the preview is missed: see previewOutcomes).
func (m *merged) previewAsked() settle.Event {
	m.previewOnce.Do(func() {
		m.previewWG.Go(func() {
			shown := m.awaitPreview()
			m.preview.set(!shown)
			select {
			case m.events <- settle.Event{Kind: settle.Idle, Key: browser.PreviewKey}:
			default:
			}
		})
	})
	return settle.Event{Kind: settle.Busy, Key: browser.PreviewKey, Hold: previewWait}
}

// previewOutcomes replaces the preview's outcome line when no preview
// showed.
func previewOutcomes(outcomes []string, missed bool) []string {
	if !missed {
		return outcomes
	}
	for i, o := range outcomes {
		if o == browser.PreviewOutcome {
			outcomes[i] = noPreview
		}
	}
	return outcomes
}
