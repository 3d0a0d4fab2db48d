// Package workspace is the page and the desktop in one tree: the desktop's
// AT-SPI tree (package desktop) with the browser's page (package browser,
// over CDP) grafted into the browser window where Chromium's own web
// document sits. The browser's UI and its native dialogs — the Save File
// dialog a download opens — come from AT-SPI, the page's content from CDP,
// and one selector grammar, one differ and one executor serve both.
//
// Each action goes to the source that owns its target: page nodes to the
// browser, desktop objects to the desktop. Actions without a target go
// where they mean something: navigate, tabs, evaluate and dialog to the
// browser; open_app and key presses to the desktop.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/desktop"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// Browser starts the browser when the workspace first needs it, and again
// after it went away. It is given the ref table to share.
type Browser func(ctx context.Context) (*browser.Browser, error)

// Workspace is a session.Source over the desktop and, once started, a
// browser on it.
type Workspace struct {
	desk  *desktop.Desktop
	start Browser

	mu   sync.Mutex
	b    *browser.Browser
	lost bool // a browser was open and went away; the next start says so

	preview previewState // the page asked to print and no preview showed
	place   pagePlace    // where the last snapshot put the page's boxes (shot.go)
}

// lostNote tops the reply of the action that started a browser after the
// last one went away.
const lostNote = "note: the browser had closed or crashed; started a new one (page state was lost)"

// New returns a workspace over desk; start opens the browser on first use
// (nil: no browser, the desktop alone).
func New(desk *desktop.Desktop, start Browser) *Workspace {
	return &Workspace{desk: desk, start: start}
}

// Close closes the browser, if one was started, and the desktop.
func (w *Workspace) Close() error {
	w.mu.Lock()
	b := w.b
	w.b = nil
	w.mu.Unlock()
	if b != nil {
		b.Close()
	}
	return w.desk.Close()
}

// Refs returns the ref table the desktop and its browser share
// (session.RefKeeper).
func (w *Workspace) Refs() *tree.Refs { return w.desk.Refs() }

// OpenDialog is the JavaScript dialog open on the browser's current page,
// or nil (session.DialogNamer). A page's dialog the desktop shows as a
// native window is judged as the desktop's nodes are.
func (w *Workspace) OpenDialog() *tree.Node {
	if b := w.Browser(); b != nil {
		return b.OpenDialog()
	}
	return nil
}

var _ session.DialogNamer = (*Workspace)(nil)

// Desktop is the desktop source.
func (w *Workspace) Desktop() *desktop.Desktop { return w.desk }

// Browser returns the running browser, or nil.
func (w *Workspace) Browser() *browser.Browser {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b != nil && w.b.Gone() {
		w.b.Close()
		w.b, w.lost = nil, true
	}
	return w.b
}

// DownloadDir is the browser's downloads folder (session.Downloader), or
// "" before the browser started.
func (w *Workspace) DownloadDir() string {
	if b := w.Browser(); b != nil {
		return b.DownloadDir()
	}
	return ""
}

// browser returns the browser, starting it when there is none; relaunched
// says it replaced one that went away.
func (w *Workspace) browser(ctx context.Context) (b *browser.Browser, relaunched bool, err error) {
	if b := w.Browser(); b != nil {
		return b, false, nil
	}
	if w.start == nil {
		return nil, false, errors.New("no browser in this session (the desktop alone)")
	}
	if b, err = w.start(ctx); err != nil {
		return nil, false, err
	}
	w.mu.Lock()
	w.b = b
	relaunched, w.lost = w.lost, false
	w.mu.Unlock()
	return b, relaunched, nil
}

// Snapshot reads the desktop and the browser's current page at once and
// grafts the page into Chromium's web document.
func (w *Workspace) Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error) {
	b := w.Browser()
	var page *tree.Snapshot
	var perr, verr error
	var vp browser.Viewport
	var wg sync.WaitGroup
	if b != nil {
		// The page's boxes place its nodes on the screen: none may be
		// older than the layout (browser.SnapshotOptions.Boxes).
		wg.Go(func() { page, _, perr = b.Snapshot(ctx, browser.SnapshotOptions{Full: full, Boxes: true}) })
		wg.Go(func() { vp, verr = b.Viewport(ctx) })
	}
	snap, err := w.desk.Snapshot(ctx, full)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if b != nil && w.heldByPreview(b, snap) {
		w.setPlace(pagePlace{kind: heldPage})
		return snap, nil
	}
	if perr != nil {
		return nil, fmt.Errorf("reading the page: %w", perr)
	}
	w.setPlace(pagePlace{kind: noPage})
	if page != nil {
		w.graft(snap, page, vp, verr)
	}
	if b != nil && b.SavesWithDialog() {
		markSaveDialogs(snap, w.desk.IsWebDocument)
	}
	return snap, nil
}

// markSaveDialogs marks the dialogs of the browser's application as file
// choosers while a download waits for its Save dialog: GTK 4 gives its
// file chooser no role of its own (and registers it as an application of
// its own, under the browser's name in another case), so the desktop cannot tell it from
// another dialog, but the browser knows one is coming.
func markSaveDialogs(snap *tree.Snapshot, isWeb func(*tree.Node) bool) {
	browsers := map[string]bool{}
	for _, app := range snap.Root.Children {
		tree.Walk(app, func(n *tree.Node) bool {
			if isWeb(n) {
				browsers[strings.ToLower(app.Name)] = true
			}
			return !browsers[strings.ToLower(app.Name)]
		})
	}
	for _, app := range snap.Root.Children {
		if !browsers[strings.ToLower(app.Name)] {
			continue
		}
		tree.Walk(app, func(n *tree.Node) bool {
			if n.Role == "dialog" {
				n.Chooser = true
			}
			return true
		})
	}
}

// graft puts the page's content under the browser's web document, its
// boxes moved to the screen where the document shows (see onScreen), or,
// when the desktop shows none (a headless browser), at the end of the tree
// with its boxes in the page's pixels. verr is why vp could not be read.
func (w *Workspace) graft(snap, page *tree.Snapshot, vp browser.Viewport, verr error) {
	var doc *tree.Node
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		if doc == nil && w.desk.IsWebDocument(n) {
			doc = n
		}
		return doc == nil
	})
	if doc == nil {
		doc = &tree.Node{Role: tree.RoleDocument}
		snap.Root.Children = append(snap.Root.Children, doc)
	}
	doc.Name = page.Header.Title
	doc.Children = page.Root.Children
	// tab: and url: scope inside the page as in the tab's own snapshot.
	h := page.Header
	doc.Page = &h
	doc.Frame = page.Root.Frame // the document the page shows, for --domains
	switch {
	case doc.Bounds == nil:
		w.setPlace(pagePlace{kind: pagePixels})
	case verr != nil:
		snap.Header.Notes = append(snap.Header.Notes, "page boxes are in page pixels, not screen pixels: "+verr.Error())
		w.setPlace(pagePlace{kind: unplaced})
	default:
		doc.Children = onScreen(doc.Children, vp, doc.Bounds.X, doc.Bounds.Y)
		w.setPlace(pagePlace{kind: onTheScreen, x: doc.Bounds.X, y: doc.Bounds.Y})
	}
}

// Watch watches both sources for one action.
func (w *Workspace) Watch(ctx context.Context) (session.Watcher, error) {
	dw, err := w.desk.Watch(ctx)
	if err != nil {
		return nil, err
	}
	w.preview.set(false)
	m := &merged{watchers: []session.Watcher{dw}, events: make(chan settle.Event, 4096), done: make(chan struct{}),
		preview: &w.preview, awaitPreview: func() bool { return w.awaitPreview(ctx) }, desk: dw}
	if b := w.Browser(); b != nil {
		bw, err := b.Source().Watch(ctx)
		if err != nil {
			dw.Stop()
			return nil, err
		}
		m.watchers = append(m.watchers, bw)
		m.page = bw
		m.browserApp = func() string { return w.desk.AppOf(ctx, b.PID()) }
	}
	m.start()
	return m, nil
}

// Do sends the action to the source that owns its target.
func (w *Workspace) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (session.Output, error) {
	if w.toDesktop(a, target) {
		out, err := w.desk.Do(ctx, p, a, target, to)
		out.Shot = w.placeShot(ctx, nil, a, true, out.Shot)
		return out, err
	}
	b, relaunched, err := w.browser(ctx)
	if err != nil {
		return session.Output{}, err
	}
	out, err := b.Source().Do(ctx, p, a, target, to)
	out.Shot = w.placeShot(ctx, b, a, false, out.Shot)
	if relaunched {
		out.Outcomes = append([]string{lostNote}, out.Outcomes...)
	}
	return out, err
}

// toDesktop says which source an action goes to.
func (w *Workspace) toDesktop(a action.Action, target *tree.Node) bool {
	if a.At != "" {
		return true // a point of the screen: X input there, page or not
	}
	if target != nil {
		return w.desk.Has(target)
	}
	switch a.Kind {
	case action.OpenApp, action.Activate, action.Press, action.Type:
		return true
	case action.Screenshot:
		return true // with no target: the window in front
	case action.Clipboard:
		return true // the X clipboard, which a headful browser's pages share
	}
	return false
}

// merged joins several watchers' events and outcomes.
type merged struct {
	watchers []session.Watcher
	events   chan settle.Event
	done     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once
	// preview says whether the print preview was missed; awaitPreview
	// waits for it on the desktop, in previewWG once the page asked.
	preview      *previewState
	awaitPreview func() bool
	previewOnce  sync.Once
	previewWG    sync.WaitGroup
	// page is the browser's watcher (nil without a browser), desk the
	// desktop's; browserApp finds the browser's application on the
	// desktop (see Flush).
	page, desk session.Watcher
	browserApp func() string
	// pageTimers is what the page's last Flushed said of the action's
	// timers: the desktop's Flushed, which ends the round trip, passes a
	// pending one on.
	timersMu   sync.Mutex
	pageTimers settle.Event
}

// Flush flushes the page, then the desktop (settle.WaitFlushed), and
// reports the desktop's settle.Flushed, which follows every event either
// source sent before its round trip's answer. The desktop's round trips
// come after the page's and include the browser's own application: what
// the browser does at a page's request (a permission prompt in its address
// bar) has reached its user interface by then, a frame after the request.
// When a watcher cannot flush, nothing is reported (the quiet window
// decides).
func (m *merged) Flush() {
	if _, ok := m.desk.(session.Flusher); !ok {
		return
	}
	if m.page == nil {
		m.desk.(session.Flusher).Flush()
		return
	}
	if f, ok := m.page.(session.Flusher); ok {
		f.Flush()
	}
}

// pageFlushed goes on from the page's flush to the desktop's.
func (m *merged) pageFlushed() {
	go func() {
		if in, ok := m.desk.(interface{ Include(string) }); ok && m.browserApp != nil {
			in.Include(m.browserApp())
		}
		m.desk.(session.Flusher).Flush()
	}()
}

// setPageTimers keeps what the page's Flushed e says of its timers.
func (m *merged) setPageTimers(e settle.Event) {
	m.timersMu.Lock()
	m.pageTimers = e
	m.timersMu.Unlock()
}

// withPageTimers is the desktop's Flushed e, which follows the page's,
// with the timer the page's said is pending, for the wait to follow
// (settle.Event.Due). That no timer is pending is not passed on: it says
// nothing of the desktop, whose effects that come after its round trip (a
// paste, fetched from the clipboard's owner) the tail still waits for.
func (m *merged) withPageTimers(e settle.Event) settle.Event {
	m.timersMu.Lock()
	defer m.timersMu.Unlock()
	if p := m.pageTimers; p.Timers && p.Due >= 0 {
		e.Timers, e.Due = true, p.Due
	}
	return e
}

func (m *merged) start() {
	for _, w := range m.watchers {
		m.wg.Add(1)
		go func(w session.Watcher, ch <-chan settle.Event) {
			defer m.wg.Done()
			for {
				select {
				case <-m.done:
					return
				case e, ok := <-ch:
					if !ok {
						return
					}
					if isPreview(e) {
						e = m.previewAsked()
					}
					if e.Kind == settle.Flushed && w == m.page {
						m.setPageTimers(e)
						m.pageFlushed()
						continue
					}
					if e.Kind == settle.Flushed && m.page != nil {
						e = m.withPageTimers(e)
					}
					select {
					case m.events <- e:
					default:
					}
				}
			}
		}(w, w.Events())
	}
}

func (m *merged) Events() <-chan settle.Event { return m.events }

// SettleTail is the page's tail when a browser is in the workspace, else
// the desktop's none (session.Tailer).
func (m *merged) SettleTail() time.Duration {
	if m.page != nil {
		return 0 // the session's default
	}
	return settle.NoTail
}

func (m *merged) Stop() ([]string, bool) {
	var outcomes []string
	replaced := false
	m.once.Do(func() {
		close(m.done)
		m.wg.Wait()
		m.previewWG.Wait()
		for _, w := range m.watchers {
			o, r := w.Stop()
			outcomes = append(outcomes, o...)
			replaced = replaced || r
		}
		outcomes = previewOutcomes(outcomes, m.preview.take())
	})
	return outcomes, replaced
}

// Open opens the desktop ($DISPLAY, its session and accessibility buses)
// with a browser that starts headful on it at the first action that needs
// one: page and desktop in one tree. On systems other than Linux it fails
// with an error wrapping desktop.ErrUnsupported: the desktop is Linux's so
// far.
func Open(ctx context.Context, opt browser.Options) (*Workspace, error) {
	refs := tree.NewRefs()
	desk, err := desktop.Open(ctx, desktop.Options{Refs: refs, SkipWeb: true, Logger: opt.Logger})
	if err != nil {
		return nil, err
	}
	return New(desk, HeadfulBrowser(opt, refs)), nil
}

// HeadfulBrowser returns a starter for a browser shown on the desktop:
// headful, in AT-SPI (ACCESSIBILITY_ENABLED=1), sharing the desktop's ref
// table so page and desktop refs never collide.
func HeadfulBrowser(opt browser.Options, refs *tree.Refs) Browser {
	opt.Headful = true
	opt.Refs = refs
	opt.Env = append(append([]string{}, opt.Env...), "ACCESSIBILITY_ENABLED=1")
	opt.Args = append(append([]string{}, opt.Args...), "--force-renderer-accessibility")
	return func(ctx context.Context) (*browser.Browser, error) {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return browser.New(ctx, opt)
	}
}
