package browser

import (
	"context"
	"fmt"
	"github.com/canopy-dev/canopy/tree"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/settle"
)

// tabWatch listens to one tab for its whole life: it keeps the state that
// outlives an action (an open JavaScript dialog) and forwards activity to the
// watch of the action in progress, if any.
type tabWatch struct {
	b  *Browser
	id target.ID

	mu       sync.Mutex
	dialog   *page.EventJavascriptDialogOpening // the open JS dialog, nil if none
	dialogCh chan struct{}                      // closed when a dialog opens
	gone     chan struct{}                      // closed when the open dialog closes
	storm    dialogStorm                        // dialogs seen lately, to stop a storm
	crashed  bool                               // the renderer crashed; a navigation clears it
	stuck    bool                               // the page did not answer when last asked
	loading  bool                               // the main frame is loading
	// framesLoading holds the other frames of the tab's process that are
	// loading (stuck.go).
	framesLoading map[cdp.FrameID]bool
	preview       bool          // a desktop browser's print preview holds the page
	previewCh     chan struct{} // closed when the print preview opens
	printingPDF   bool          // canopy's print action runs: its beforeprint is no news
	heldBy        string        // headless: the external scheme whose hidden question holds the tab
	// docReqs is the document request of each frame's latest navigation.
	// When a frame moves into its own process (a cross-site frame), the end
	// of its loading is reported on the new frame target, not here: the
	// swap ends it for the settler.
	docReqs map[cdp.FrameID]network.RequestID
	// changes counts the events that can change the tab's tree (kept.go).
	changes changeCounter
	// world is the unique id of canopy's isolated world in the main
	// frame's document, "" when not known (flush.go); frameWorlds those of
	// the other frames in the tab's process.
	world       string
	frameWorlds map[string]bool
	// axOn says the Accessibility domain is enabled (changes.go).
	axOn bool
	// inflight holds the requests in flight and when each began
	// (inflight.go).
	inflight map[network.RequestID]time.Time
}

// dialogOpened returns a channel that is closed once a JavaScript dialog is
// open on the tab (at once if one is open now).
func (tw *tabWatch) dialogOpened() <-chan struct{} {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.dialogCh == nil {
		tw.dialogCh = make(chan struct{})
		if tw.dialog != nil {
			close(tw.dialogCh)
		}
	}
	return tw.dialogCh
}

// current returns the watch of the action in progress when this tab is the
// current one: a background tab's activity does not hold an action up.
func (tw *tabWatch) current() *watch {
	if t := tw.b.curTab(); t == nil || t.id != tw.id {
		return nil
	}
	return tw.b.currentWatch()
}

// currentWatch returns the watch of the action in progress, or nil.
func (b *Browser) currentWatch() *watch {
	b.sinkMu.Lock()
	defer b.sinkMu.Unlock()
	return b.sink
}

// openDialog returns the JavaScript dialog that is open on the tab, or nil.
func (tw *tabWatch) openDialog() *page.EventJavascriptDialogOpening {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.dialog
}

// onEvent runs on chromedp's reader goroutine: it must not block or call CDP.
func (tw *tabWatch) onEvent(ev any) {
	tw.changes.note(ev)
	w := tw.current()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		if !strings.HasPrefix(e.Request.URL, "data:") {
			tw.requestStarted(e.RequestID)
			w.send(settle.Event{Kind: settle.Busy, Key: reqKey(e.RequestID)})
		}
		w.requestSent(e)
		if e.Type == network.ResourceTypeDocument && action.External(e.Request.URL) {
			tw.externalURL(w, e.Request.URL, schemeLoaded) // schemes.go
		}
		if e.Type == network.ResourceTypeDocument && e.FrameID != "" {
			tw.mu.Lock()
			if tw.docReqs == nil {
				tw.docReqs = map[cdp.FrameID]network.RequestID{}
			}
			tw.docReqs[e.FrameID] = e.RequestID
			tw.mu.Unlock()
		}
	case *page.EventFrameDetached:
		tw.setLoading(e.FrameID, false)
		w.send(settle.Event{Kind: settle.Idle, Key: navKey(e.FrameID)})
		if e.Reason == page.FrameDetachedReasonSwap {
			tw.mu.Lock()
			req, ok := tw.docReqs[e.FrameID]
			delete(tw.docReqs, e.FrameID)
			tw.mu.Unlock()
			w.send(settle.Event{Kind: settle.Idle, Key: "frame:" + string(e.FrameID)})
			if ok {
				tw.requestEnded(req)
			}
		}
	case *network.EventLoadingFinished:
		tw.requestEnded(e.RequestID)
	case *network.EventResponseReceived:
		w.responded(e)
	case *runtime.EventConsoleAPICalled:
		w.consoleCalled(e)
	case *runtime.EventExceptionThrown:
		w.thrown(e)
	case *network.EventLoadingFailed:
		w.loadFailed(e)
		tw.requestEnded(e.RequestID)
	case *page.EventFrameStartedLoading:
		tw.setLoading(e.FrameID, true)
		w.send(settle.Event{Kind: settle.Busy, Key: "frame:" + string(e.FrameID)})
		if string(e.FrameID) != string(tw.id) {
			w.send(settle.Event{Kind: settle.Idle, Key: navKey(e.FrameID)})
		}
	case *page.EventFrameStoppedLoading:
		tw.setLoading(e.FrameID, false)
		w.send(settle.Event{Kind: settle.Idle, Key: "frame:" + string(e.FrameID)})
	case *inspector.EventTargetCrashed:
		tw.mu.Lock()
		tw.crashed = true
		tw.mu.Unlock()
		w.outcome("the page crashed (navigate or reload opens it again)")
		w.send(settle.Event{Kind: settle.Block})
	case *page.EventFrameNavigated:
		if e.Frame != nil {
			w.send(settle.Event{Kind: settle.Idle, Key: navKey(e.Frame.ID)})
		}
		if e.Frame != nil && e.Frame.ParentID == "" {
			tw.storm.reset() // a new document starts calm
			tw.mu.Lock()
			tw.crashed, tw.stuck, tw.preview = false, false, false
			tw.mu.Unlock()
			if e.Frame.UnreachableURL != "" && w.wasRefused(e.Frame.UnreachableURL) {
				// The browser's error page for a navigation --domains
				// refused: its outcome line says so already.
				w.errorPage(e.Frame.URL)
			} else {
				w.navigated(e.Frame.URL+e.Frame.URLFragment, true)
			}
		}
		w.send(settle.Event{Kind: settle.Mutation})
	case *page.EventNavigatedWithinDocument:
		w.navigated(e.URL, false)
		w.send(settle.Event{Kind: settle.Mutation})
	case *page.EventJavascriptDialogOpening:
		if n, storming := tw.storm.seen(time.Now()); storming {
			// The page opens dialog after dialog: canopy stops the
			// script that opens them and answers them itself, so the
			// page's tools work again.
			go tw.dismiss()
			if n == stormDialogs+1 {
				w.outcome(fmt.Sprintf("dismissed %s and stopped the script opening dialogs: the page opened %d in a row, each as soon as the last was answered", dialogText(e), n))
			}
			return
		}
		tw.mu.Lock()
		tw.dialog = e
		tw.gone = make(chan struct{})
		if tw.dialogCh != nil {
			close(tw.dialogCh)
		} else {
			tw.dialogCh = make(chan struct{})
			close(tw.dialogCh)
		}
		tw.mu.Unlock()
		w.outcome(dialogLine(e))
		w.send(settle.Event{Kind: settle.Block})
	case *page.EventJavascriptDialogClosed:
		tw.storm.closed(time.Now())
		tw.mu.Lock()
		tw.dialog = nil
		tw.dialogCh = nil
		if tw.gone != nil {
			close(tw.gone)
			tw.gone = nil
		}
		tw.mu.Unlock()
		w.send(settle.Event{Kind: settle.Mutation})
	case *runtime.EventBindingCalled:
		if e.Name != mutationBinding {
			break
		}
		if strings.HasPrefix(e.Payload, flushPayload) {
			w.flushMarked(e.Payload) // a flush's round trip, not the page
			break
		}
		if u, ok := strings.CutPrefix(e.Payload, schemePayload); ok {
			tw.externalURL(w, u, schemeStopped) // schemes.go
		}
		switch e.Payload {
		case "print":
			tw.printing(w)
		case "printed":
			tw.setPrinting(false)
		}
		w.send(settle.Event{Kind: settle.Mutation, Incidental: e.Payload == "f" || e.Payload == "s"})
	case *dom.EventDocumentUpdated:
		w.send(settle.Event{Kind: settle.Mutation})
	case *page.EventFrameRequestedNavigation:
		if string(e.FrameID) != string(tw.id) {
			// A frame of the page navigates: it is busy until it starts
			// loading (or moves to a process of its own), and its loading
			// is followed from there; the page's flushes still count.
			w.send(settle.Event{Kind: settle.Busy, Key: navKey(e.FrameID), Hold: frameNavHold})
			break
		}
		// The browser takes the navigation over: the next events do not
		// follow a flush of this page.
		w.send(settle.Event{Kind: settle.Busy, Key: navKey(e.FrameID), Hold: frameNavHold})
		w.send(settle.Event{Kind: settle.Slow})
	case *page.EventWindowOpen:
		// The new window is the browser's: its events do not follow a
		// flush of this page.
		w.send(settle.Event{Kind: settle.Slow})
	case *runtime.EventExecutionContextCreated:
		tw.contextCreated(e)
	case *runtime.EventExecutionContextDestroyed:
		tw.contextGone(e.ExecutionContextUniqueID)
	case *runtime.EventExecutionContextsCleared:
		tw.contextGone("")
	}
}

// hasCrashed reports whether the tab's renderer crashed since its last
// navigation.
func (tw *tabWatch) hasCrashed() bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.crashed
}

// goneCh returns a channel closed when the open dialog closes (nil when
// none is open).
func (tw *tabWatch) goneCh() <-chan struct{} {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.gone
}

// dialogLine is the outcome line of a JavaScript dialog.
func dialogLine(e *page.EventJavascriptDialogOpening) string {
	switch e.Type {
	case page.DialogTypeAlert:
		return dialogText(e) + " (answer: dialog accept)"
	case page.DialogTypePrompt:
		return fmt.Sprintf("%s default %s (answer: dialog accept \"text\" or dialog dismiss)", dialogText(e), quoteText(e.DefaultPrompt))
	default:
		return dialogText(e) + " (answer: dialog accept or dialog dismiss)"
	}
}

// dialogText names a dialog: its type and message.
func dialogText(e *page.EventJavascriptDialogOpening) string {
	return fmt.Sprintf("%s %s", e.Type, quoteText(e.Message))
}

// OpenDialog is a node standing for the JavaScript dialog open on the
// current tab, or nil (session.DialogNamer): an alertdialog named by its
// message, so that --confirm judges accepting a page's confirm() as it
// judges a click.
func (b *Browser) OpenDialog() *tree.Node {
	t := b.curTab()
	if t == nil || t.watch == nil {
		return nil
	}
	d := t.watch.openDialog()
	if d == nil {
		return nil
	}
	return &tree.Node{Role: "alertdialog", Name: d.Message, Description: string(d.Type)}
}

func quoteText(s string) string {
	const limit = 200
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit-1]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// watch collects what happens during one action: settle events for the
// settler, and outcome lines for the reply.
type watch struct {
	events chan settle.Event
	// start is when the watch began: the action's timers are those set
	// since (timers.go).
	start time.Time
	// ctx ends when the watch does: the flushes' round trips end with it.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	outcomes []string
	replaced bool
	lastURL  string
	closed   bool
	refused  map[string]bool // URLs --domains refused (no fragment)
	// sent counts the events sent; a flush's round trip is clean when it
	// did not grow between the round trip's start (flushAt) and its
	// answer (flush.go).
	sent    int
	flushes int
	flushAt map[string]int // by round trip token
	probs   problems       // failed requests, console errors (problems.go)
}

func newWatch(ctx context.Context, startURL string) *watch {
	ctx, cancel := context.WithCancel(ctx)
	return &watch{events: make(chan settle.Event, 4096), start: time.Now(), ctx: ctx, cancel: cancel, lastURL: startURL}
}

// send forwards an event without blocking; when the buffer is full the event
// is dropped (a dropped Idle costs settle.MaxBusy at most).
func (w *watch) send(ev settle.Event) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if ev.Kind != settle.Flushed && ev.Kind != settle.FlushFailed {
		w.sent++
	}
	select {
	case w.events <- ev:
	default:
	}
}

func (w *watch) outcome(line string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.outcomes = append(w.outcomes, line)
}

func (w *watch) navigated(to string, replaced bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if to == w.lastURL && !replaced {
		return
	}
	line := "navigated " + shortURL(w.lastURL, to)
	if to == w.lastURL {
		line = "reloaded " + trimScheme(to)
	}
	// Several navigations in one action (a redirect chain) keep one line.
	if n := len(w.outcomes); n > 0 && (strings.HasPrefix(w.outcomes[n-1], "navigated ") || strings.HasPrefix(w.outcomes[n-1], "reloaded ")) {
		w.outcomes = w.outcomes[:n-1]
	}
	w.outcomes = append(w.outcomes, line)
	w.lastURL = to
	w.replaced = w.replaced || replaced
}

// refuseURL notes a URL --domains refused (its outcome line comes
// separately), so that the error page the browser shows for it is not
// reported as a navigation, nor a popup's tab as showing it.
func (w *watch) refuseURL(url string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.refused == nil {
		w.refused = map[string]bool{}
	}
	u, _, _ := strings.Cut(url, "#")
	w.refused[u] = true
}

// wasRefused reports whether --domains refused url during the action.
func (w *watch) wasRefused(url string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	u, _, _ := strings.Cut(url, "#")
	return w.refused[u]
}

// errorPage notes that the tab now shows the browser's error page at url
// (for a refused navigation): the document was replaced, with no
// navigated line.
func (w *watch) errorPage(url string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lastURL = url
	w.replaced = true
}

// replaceOutcome rewrites an outcome line already reported.
func (w *watch) replaceOutcome(old, line string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, o := range w.outcomes {
		if o == old {
			w.outcomes[i] = line
		}
	}
}

// dropOutcome removes the outcome lines that start with prefix.
func (w *watch) dropOutcome(prefix string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.outcomes = slices.DeleteFunc(w.outcomes, func(o string) bool { return strings.HasPrefix(o, prefix) })
}

// close ends the watch; later events are dropped.
func (w *watch) close() ([]string, bool) {
	w.cancel()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return w.outcomes, w.replaced
}

// shortURL renders a navigation from → to: paths only on one origin,
// hosts without the scheme otherwise.
func shortURL(from, to string) string {
	f, err1 := url.Parse(from)
	t, err2 := url.Parse(to)
	if err1 == nil && err2 == nil && f.Host == t.Host && f.Scheme == t.Scheme && t.Host != "" {
		return pathOf(f) + " → " + pathOf(t)
	}
	return trimScheme(from) + " → " + trimScheme(to)
}

func pathOf(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		p += "#" + u.Fragment
	}
	return p
}

func trimScheme(u string) string {
	for _, p := range []string{"http://", "https://"} {
		if strings.HasPrefix(u, p) {
			return u[len(p):]
		}
	}
	return u
}

// ownPage reports whether a target is a page of this session: any page,
// or with a browser context of its own, a page in it.
func (b *Browser) ownPage(info *target.Info) bool {
	return info != nil && info.Type == "page" && (b.browserContext == "" || info.BrowserContextID == b.browserContext)
}

// browserWatch listens to the browser session for what is not a tab's own:
// popups and tabs opening or closing, downloads.
func (b *Browser) onBrowserEvent(ev any) {
	w := b.currentWatch()
	switch e := ev.(type) {
	case *target.EventTargetCreated:
		if b.ownPage(e.TargetInfo) {
			b.tabOpened(e.TargetInfo, w)
			// Its address comes later, from the browser: settle on
			// the quiet window, which waits for it.
			w.send(settle.Event{Kind: settle.Slow})
		}
	case *target.EventTargetInfoChanged:
		if b.ownPage(e.TargetInfo) {
			b.tabURLKnown(e.TargetInfo, w)
		}
	case *target.EventTargetDestroyed:
		b.tabGone(e.TargetID, w)
	case *cdpbrowser.EventDownloadWillBegin:
		b.downloadBegins(e, w)
	case *cdpbrowser.EventDownloadProgress:
		b.downloadProgress(e, w)
	}
}

// listenTab starts the tab's long-lived listener and installs the mutation
// observer.
func (b *Browser) listenTab(ctx context.Context, tabCtx context.Context, id target.ID) (*tabWatch, error) {
	tw := &tabWatch{b: b, id: id}
	if err := chromedp.Listen(tabCtx, tw.onEvent); err != nil {
		return nil, fmt.Errorf("listen to the tab: %w", err)
	}
	c := chromedp.FromContext(tabCtx)
	if err := observe(ctx, c.Target); err != nil {
		b.log.Debug("mutation observer", "err", err)
	}
	if err := trackTimers(ctx, c.Target); err != nil {
		b.log.Debug("timers", "err", err)
	}
	if err := trackShadows(ctx, c.Target); err != nil {
		b.log.Debug("shadow roots", "err", err)
	}
	if err := b.watchSchemes(ctx, c.Target); err != nil {
		b.log.Debug("external schemes", "err", err)
	}
	if err := b.guardPreloads(ctx, c.Target); err != nil { // preload.go
		return nil, err
	}
	if err := b.watchUnseen(tabCtx, tw); err != nil { // unseen.go
		return nil, err
	}
	if _, err := cdp.Call(ctx, c.Target, inspector.Enable, cdp.Empty{}); err != nil { // for targetCrashed
		b.log.Debug("inspector", "err", err)
	}
	return tw, nil
}
