package browser

import (
	"context"
	"fmt"
	"strings"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/settle"
)

// tab is one open page. ctx is nil until canopy first works in the tab (a
// popup the page opened is only attached when the agent switches to it).
type tab struct {
	id     target.ID
	url    string // as last reported by the browser, for tabs list
	ctx    context.Context
	cancel context.CancelFunc
	watch  *tabWatch
	// doc and docURL are the document the tab's refs belong to (under
	// Browser.mu): when another replaces it, or the tab closes, its refs
	// are retired.
	doc, docURL string
	// kept is the tree read last, while nothing changed since (kept.go);
	// keptWhy says why the last read was not kept. Under Browser.mu.
	kept    *keptTree
	keptWhy string
	// lookups counts the lookups in the part of doc a read on demand left
	// out (reveal.go). Under Browser.mu.
	lookups int
}

// TabInfo describes a tab for tabs list.
type TabInfo struct {
	Index   int    `json:"index"`
	Title   string `json:"title"`
	URL     string `json:"url"`
	Current bool   `json:"current"`
}

// startTabs registers the first tab, starts the browser-level listener
// (popups, downloads) and points downloads at the session's folder.
func (b *Browser) startTabs(ctx context.Context) error {
	id := targetID(b.browserCtx)
	tw, err := b.listenTab(ctx, b.browserCtx, id)
	if err != nil {
		return err
	}
	first := &tab{id: id, ctx: b.browserCtx, watch: tw}
	b.mu.Lock()
	b.tabs = []*tab{first}
	b.cur = first
	b.mu.Unlock()
	if err := chromedp.ListenBrowser(b.browserCtx, b.onBrowserEvent); err != nil {
		return fmt.Errorf("listen to the browser: %w", err)
	}
	if err := b.ensureDownloadDir(); err != nil {
		return err
	}
	c := chromedp.FromContext(b.browserCtx)
	params := cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: b.downloadDir, EventsEnabled: new(true),
		BrowserContextID: b.browserContext,
	}
	if b.askDownloads {
		// The profile's preferences decide (they ask); events still come.
		params = cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorDefault, EventsEnabled: new(true)}
	}
	_, err = cdp.Call(ctx, c.Browser, cdpbrowser.SetDownloadBehavior, params)
	if err != nil {
		b.log.Debug("download behavior", "err", err)
	}
	return nil
}

// tabCtx returns the chromedp context of the current tab.
func (b *Browser) tabCtx() context.Context {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur == nil || b.cur.ctx == nil {
		return b.browserCtx
	}
	return b.cur.ctx
}

// TabContext is the chromedp context of the current tab, for what canopy
// does not do itself: chromedp.Run(b.TabContext(), …) sends CDP commands
// to the page, such as Emulation.setGeolocationOverride in a test.
//
// What runs there bypasses canopy's gate, its audit log and its refs: it
// is for the program that embeds canopy, never for an agent's input.
func (b *Browser) TabContext() context.Context { return b.tabCtx() }

// tabByID returns the open tab with target id, or nil.
func (b *Browser) tabByID(id target.ID) *tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.tabs {
		if t.id == id {
			return t
		}
	}
	return nil
}

// curTab returns the current tab.
func (b *Browser) curTab() *tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cur
}

// curTabURL is the current tab's address as the browser last reported it.
func (b *Browser) curTabURL() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur == nil {
		return ""
	}
	return b.cur.url
}

// curIndex returns the current tab's number (1-based), for snapshot headers.
func (b *Browser) curIndex() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, t := range b.tabs {
		if t == b.cur {
			return i + 1
		}
	}
	return 1
}

// tabURLKnown fills in the URL of a tab that opened blank (a link with
// target=_blank opens about:blank first) in the action's outcome line.
func (b *Browser) tabURLKnown(info *target.Info, w *watch) {
	if info.URL == "" || info.URL == "about:blank" {
		return
	}
	if w.wasRefused(info.URL) {
		w.send(settle.Event{Kind: settle.Idle, Key: tabKey(info.TargetID)})
		return // the tab shows the browser's error page
	}
	b.mu.Lock()
	n := 0
	for i, t := range b.tabs {
		if t.id == info.TargetID {
			n, t.url = i+1, info.URL
		}
	}
	b.mu.Unlock()
	if n > 0 {
		w.replaceOutcome(fmt.Sprintf("opened tab %d (tabs switch %d)", n, n),
			fmt.Sprintf("opened tab %d %s (tabs switch %d)", n, trimScheme(info.URL), n))
		w.send(settle.Event{Kind: settle.Idle, Key: tabKey(info.TargetID)})
	}
}

// tabURLHold is how long a tab that opened blank may hold an action's
// wait for its address: a link with target=_blank navigates it at once,
// while a window.open() without a URL stays blank.
const tabURLHold = 400 * time.Millisecond

// tabKey is the settle key of a tab's address still to come.
func tabKey(id target.ID) string { return "tab:" + string(id) }

// tabOpened records a page target that appeared (a popup, window.open, a
// link with target=_blank); it runs on the listener goroutine.
func (b *Browser) tabOpened(info *target.Info, w *watch) {
	b.mu.Lock()
	for _, t := range b.tabs {
		if t.id == info.TargetID {
			b.mu.Unlock()
			return
		}
	}
	b.tabs = append(b.tabs, &tab{id: info.TargetID, url: info.URL})
	n := len(b.tabs)
	b.mu.Unlock()
	line := fmt.Sprintf("opened tab %d", n)
	if info.URL != "" && info.URL != "about:blank" && !w.wasRefused(info.URL) {
		line += " " + trimScheme(info.URL)
	} else {
		// Its address comes later: the wait holds for it (tabURLKnown).
		w.send(settle.Event{Kind: settle.Busy, Key: tabKey(info.TargetID), Hold: tabURLHold})
	}
	w.outcome(line + fmt.Sprintf(" (tabs switch %d)", n))
}

// tabGone forgets a closed tab; it runs on the listener goroutine.
func (b *Browser) tabGone(id target.ID, w *watch) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, t := range b.tabs {
		if t.id == id {
			b.tabs = append(b.tabs[:i:i], b.tabs[i+1:]...)
			if t.cancel != nil {
				go t.cancel()
			}
			if b.cur == t {
				b.cur = nil
			}
			b.refs.Retire(t.doc, fmt.Sprintf("in tab %d, which was closed", i+1))
			go w.outcome(fmt.Sprintf("closed tab %d", i+1))
			return
		}
	}
}

// Tabs lists the open tabs with their titles and URLs.
func (b *Browser) Tabs(ctx context.Context) ([]TabInfo, error) {
	infos, err := chromedp.Targets(b.browserCtx)
	if err != nil {
		return nil, fmt.Errorf("list tabs: %w", err)
	}
	byID := map[target.ID]*target.Info{}
	for _, in := range infos {
		byID[in.TargetID] = in
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []TabInfo
	for i, t := range b.tabs {
		ti := TabInfo{Index: i + 1, URL: t.url, Current: t == b.cur}
		if in := byID[t.id]; in != nil {
			ti.Title, ti.URL = in.Title, in.URL
		}
		out = append(out, ti)
	}
	return out, nil
}

// FormatTabs renders a tab list, one tab per line, the current one marked.
func FormatTabs(tabs []TabInfo) string {
	var b strings.Builder
	for _, t := range tabs {
		fmt.Fprintf(&b, "tab %d %s %s", t.Index, quoteText(t.Title), trimScheme(t.URL))
		if t.Current {
			b.WriteString(" current")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// attachTab makes sure canopy has a session on t.
func (b *Browser) attachTab(ctx context.Context, t *tab) error {
	if t.ctx != nil {
		return nil
	}
	var tctx context.Context
	var cancel context.CancelFunc
	var err error
	// Attaching evaluates in the page; a tab that commits its document
	// just then (a new tab, a popup, still loading) has no execution
	// context for a moment. The next attempt finds the new one.
	const attempts = 5
	for i := range attempts {
		tctx, cancel = chromedp.NewContext(b.browserCtx, chromedp.WithTargetID(t.id), chromedp.WithDetachOnCancel())
		if err = runWithin(ctx, tctx); err == nil {
			break
		}
		cancel()
		if i == attempts-1 || ctx.Err() != nil || !strings.Contains(err.Error(), "Cannot find default execution context") {
			return fmt.Errorf("attach to the tab: %w", err)
		}
		b.log.Debug("attach to a tab between documents, again", "tab", t.id, "err", err)
	}
	tw, err := b.listenTab(ctx, tctx, t.id)
	if err != nil {
		cancel()
		return err
	}
	b.mu.Lock()
	t.ctx, t.cancel, t.watch = tctx, cancel, tw
	b.mu.Unlock()
	return nil
}

// tabAt returns tab n (1-based).
func (b *Browser) tabAt(n int) (*tab, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 1 || n > len(b.tabs) {
		return nil, fmt.Errorf("no tab %d: %d tab(s) open (tabs list)", n, len(b.tabs))
	}
	return b.tabs[n-1], nil
}

// switchTab makes tab n current and brings it to the front (a background
// tab does not run animation frames).
func (b *Browser) switchTab(ctx context.Context, n int) error {
	t, err := b.tabAt(n)
	if err != nil {
		return err
	}
	if err := b.attachTab(ctx, t); err != nil {
		return err
	}
	c := chromedp.FromContext(b.browserCtx)
	if _, err := cdp.Call(ctx, c.Browser, target.ActivateTarget, target.ActivateTargetParams{TargetID: t.id}); err != nil {
		b.log.Debug("activate tab", "err", err)
	}
	b.mu.Lock()
	b.cur = t
	b.mu.Unlock()
	return nil
}

// newTab opens a tab on url (about:blank when empty) and makes it current.
func (b *Browser) newTab(ctx context.Context, url string) (int, error) {
	url = action.NormalizeURL(url)
	if url == "" {
		url = "about:blank"
	}
	c := chromedp.FromContext(b.browserCtx)
	res, err := cdp.Call(ctx, c.Browser, target.CreateTarget, target.CreateTargetParams{URL: url, BrowserContextID: b.browserContext})
	if err != nil {
		return 0, fmt.Errorf("open a tab: %w", err)
	}
	b.mu.Lock()
	n := 0
	for i, t := range b.tabs {
		if t.id == res.TargetID {
			n = i + 1
		}
	}
	if n == 0 {
		b.tabs = append(b.tabs, &tab{id: res.TargetID, url: url})
		n = len(b.tabs)
	}
	b.mu.Unlock()
	return n, b.switchTab(ctx, n)
}

// closeTab closes tab n (the current one when 0); the tab before it, or the
// first, becomes current.
func (b *Browser) closeTab(ctx context.Context, n int) error {
	b.mu.Lock()
	if n == 0 {
		for i, t := range b.tabs {
			if t == b.cur {
				n = i + 1
			}
		}
	}
	count := len(b.tabs)
	b.mu.Unlock()
	if count <= 1 {
		return fmt.Errorf("cannot close the last tab")
	}
	t, err := b.tabAt(n)
	if err != nil {
		return err
	}
	c := chromedp.FromContext(b.browserCtx)
	if _, err := cdp.Call(ctx, c.Browser, target.CloseTarget, target.CloseTargetParams{TargetID: t.id}); err != nil {
		return fmt.Errorf("close tab %d: %w", n, err)
	}
	b.mu.Lock()
	removed := false
	for i, x := range b.tabs {
		if x == t {
			b.tabs = append(b.tabs[:i:i], b.tabs[i+1:]...)
			removed = true
			b.refs.Retire(t.doc, fmt.Sprintf("in tab %d, which was closed", i+1))
		}
	}
	wasCur := b.cur == t || b.cur == nil
	b.mu.Unlock()
	if removed { // else tabGone saw it close first and said so
		b.currentWatch().outcome(fmt.Sprintf("closed tab %d", n))
	}
	if t.cancel != nil {
		t.cancel()
	}
	if wasCur {
		return b.switchTab(ctx, max(n-1, 1))
	}
	return nil
}
