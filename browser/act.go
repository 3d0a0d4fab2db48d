package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/keys"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// Source returns the browser as the executor's source: the current tab.
func (b *Browser) Source() session.Source { return source{b} }

type source struct{ b *Browser }

func (s source) Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error) {
	snap, _, err := s.b.Snapshot(ctx, SnapshotOptions{Full: full})
	return snap, err
}

// SnapshotBoxes is Snapshot with every box as the page lays it out now
// (session.BoxReader), for actions at a point.
func (s source) SnapshotBoxes(ctx context.Context) (*tree.Snapshot, error) {
	snap, _, err := s.b.Snapshot(ctx, SnapshotOptions{Boxes: true})
	return snap, err
}

func (s source) Watch(ctx context.Context) (session.Watcher, error) { return s.b.watch(ctx) }

// DownloadDir is the browser's downloads folder (session.Downloader):
// uploads at the act tier come from it.
func (s source) DownloadDir() string { return s.b.DownloadDir() }

// Refs is the session's ref table (session.RefKeeper).
func (s source) Refs() *tree.Refs { return s.b.refs }

// OpenDialog is the current tab's open JavaScript dialog, or nil
// (session.DialogNamer).
func (s source) OpenDialog() *tree.Node { return s.b.OpenDialog() }

var _ session.DialogNamer = source{}

func (s source) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (session.Output, error) {
	return s.b.Do(ctx, p, a, target, to)
}

// TreePoint places a point of the viewport, in CSS px, in the page's tree,
// whose boxes are the document's layout px (session.PointMapper).
func (s source) TreePoint(ctx context.Context, x, y float64) (float64, float64, error) {
	vp, err := s.b.Viewport(ctx)
	if err != nil {
		return 0, 0, err
	}
	if vp.Zoom <= 0 {
		return x, y, nil
	}
	return (x + vp.X) * vp.Zoom, (y + vp.Y) * vp.Zoom, nil
}

// watch starts collecting the current tab's activity for one action.
func (b *Browser) watch(ctx context.Context) (session.Watcher, error) {
	w := newWatch(ctx, b.tabURL(ctx))
	b.sinkMu.Lock()
	b.sink = w
	b.sinkMu.Unlock()
	b.curTab().watchOrNil().seed(w)
	b.seedDownloads(w)
	return watcher{b, w}, nil
}

// tabURL asks the browser (not the page, which a JavaScript dialog may
// block) for the current tab's URL.
func (b *Browser) tabURL(ctx context.Context) string {
	if info := b.tabInfo(ctx); info != nil {
		return info.URL
	}
	return ""
}

// tabInfo asks the browser for the current tab's target info (URL, title),
// nil when it cannot say.
func (b *Browser) tabInfo(ctx context.Context) *target.Info {
	t := b.curTab()
	c := chromedp.FromContext(b.browserCtx)
	if t == nil || c == nil || c.Browser == nil {
		return nil
	}
	info, err := cdp.Call(ctx, c.Browser, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: t.id})
	if err != nil {
		return nil
	}
	return info.TargetInfo
}

type watcher struct {
	b *Browser
	w *watch
}

func (w watcher) Events() <-chan settle.Event { return w.w.events }

func (w watcher) Stop() ([]string, bool) {
	w.b.sinkMu.Lock()
	if w.b.sink == w.w {
		w.b.sink = nil
	}
	w.b.sinkMu.Unlock()
	return w.w.close()
}

// Do performs one action on the current tab. The permit must be the one
// the policy issued for a; element actions check actionability first and
// act with trusted input events.
func (b *Browser) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (session.Output, error) {
	if err := p.Allows(a.Kind); err != nil {
		return session.Output{}, err
	}
	if a.Kind == action.Upload {
		if err := p.Within(a.Paths); err != nil {
			return session.Output{}, err
		}
	}
	cur := b.curTab()
	if cur == nil {
		return session.Output{}, fmt.Errorf("no tab is open (tabs list, tabs switch N)")
	}
	var answered []string
	if d := cur.watch.openDialog(); d != nil && a.Kind != action.Dialog && a.Kind != action.Tabs {
		if a.Kind != action.Navigate {
			return session.Output{}, fmt.Errorf("a JavaScript %s is open (%s): answer it first with dialog accept or dialog dismiss", d.Type, quoteText(d.Message))
		}
		if a.URL != "" {
			// Leaving for another page: its tab goes, dialog and all. A
			// page can open the next dialog as soon as one is answered,
			// and hold the navigation up with it.
			return b.replaceTab(ctx, cur, a, fmt.Sprintf("had %s open", dialogText(d)))
		}
		// Back, forward or reload: the dialog is dismissed first, and said so.
		out, err := b.answerDialog(ctx, cur, action.Action{Kind: action.Dialog, Nav: "dismiss"})
		if err != nil {
			return out, err
		}
		answered = out.Outcomes
	}
	if err := cur.watch.heldErr(a); err != nil {
		return session.Output{}, err
	}
	var h *handle
	if target != nil {
		var err error
		if h, err = b.handleOf(ctx, target); err != nil {
			return session.Output{}, err
		}
	}
	if a.Kind == action.Dialog {
		return b.answerDialog(ctx, cur, a)
	}
	// Input that opens a JavaScript dialog does not return until the dialog
	// is answered: the action ends when the dialog opens, and the input
	// call completes in the background once the agent answers it.
	type result struct {
		out session.Output
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := b.do(ctx, a, h, to)
		done <- result{out, err}
	}()
	// Input whose handler never returns (onclick="for(;;){}") holds the
	// call: past StuckAfter the page is asked whether it still answers.
	// Reading kinds (an extract of a huge page) may keep the page busy
	// for longer, and are left to the call's own deadline.
	var stuck <-chan time.Time
	if spec, _ := action.SpecOf(a.Kind); spec.Input {
		tick := time.NewTicker(StuckAfter)
		defer tick.Stop()
		stuck = tick.C
	}
	for {
		select {
		case r := <-done:
			r.out.Outcomes = append(answered, r.out.Outcomes...)
			return r.out, r.err
		case <-cur.watch.dialogOpened():
			return session.Output{Outcomes: answered}, nil
		case <-cur.watch.previewOpened():
			return session.Output{Outcomes: answered}, nil
		case <-stuck:
			if err := b.responsive(ctx, chromedpTarget(cur.ctx)); errors.Is(err, ErrUnresponsive) {
				return session.Output{Outcomes: answered}, err
			}
		case <-ctx.Done():
			return session.Output{Outcomes: answered}, ctx.Err()
		}
	}
}

// do dispatches one action to its implementation.
func (b *Browser) do(ctx context.Context, a action.Action, h *handle, to *tree.Node) (session.Output, error) {
	tab := chromedpTarget(b.tabCtx())
	if spec, _ := action.SpecOf(a.Kind); !spec.Reads {
		b.touched() // kept.go: our input can change what no event reports (:hover)
	}
	switch a.Kind {
	case action.Click, action.DoubleClick, action.Hover:
		return session.Output{}, b.pointer(ctx, tab, h, a)
	case action.Type:
		return session.Output{}, b.typeText(ctx, tab, h, a)
	case action.Press:
		return session.Output{}, b.press(ctx, tab, h, a.Keys)
	case action.Check, action.Uncheck:
		return b.check(ctx, tab, h, a)
	case action.Select:
		return session.Output{}, b.selectOption(ctx, tab, h, a.Text)
	case action.SetValue:
		return session.Output{}, setValue(ctx, h, a.Text)
	case action.Scroll:
		return b.scroll(ctx, tab, h, a)
	case action.Drag:
		return session.Output{}, b.drag(ctx, tab, h, to)
	case action.Upload:
		return session.Output{}, upload(ctx, h, a.Paths)
	case action.Navigate:
		return b.navigate(ctx, a)
	case action.Tabs:
		return b.tabsAction(ctx, a)
	case action.Evaluate:
		return b.evaluate(ctx, a.Text)
	case action.Screenshot:
		if a.Screen {
			return session.Output{}, fmt.Errorf("a screenshot of the whole screen needs the desktop (canopy mcp --desktop); without it, the page is the screen")
		}
		return b.screenshot(ctx, h, a.Marks)
	case action.Extract:
		return b.extract(ctx, h, a)
	case action.Print:
		return b.printPDF(ctx, a)
	case action.Permissions:
		return b.permissions(ctx, a)
	case action.Clipboard:
		return b.clipboardText(ctx, a)
	}
	return session.Output{}, fmt.Errorf("the browser cannot %s", a.Kind)
}

func needNode(h *handle, kind action.Kind) error {
	if h == nil {
		return fmt.Errorf("%s needs a target", kind)
	}
	return nil
}

// pointer clicks, double-clicks or hovers the node's centre.
func (b *Browser) pointer(ctx context.Context, tab cdp.Session, h *handle, a action.Action) error {
	if err := needNode(h, a.Kind); err != nil {
		return err
	}
	button, err := mouseButton(a.Button)
	if err != nil {
		return err
	}
	if a.At != "" {
		return pointerAt(ctx, tab, a, button)
	}
	x, y, err := b.point(ctx, h, a.Kind != action.Hover)
	if err != nil {
		return err
	}
	if err := mouse(ctx, tab, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0); err != nil || a.Kind == action.Hover {
		return err
	}
	// Moving the mouse can move the node (a hover style elsewhere goes
	// away): measure again, so the press lands where the node is now.
	x2, y2, err := b.point(ctx, h, true)
	if err != nil {
		return err
	}
	count := max(a.Count, 1)
	if a.Kind == action.DoubleClick {
		count = 2
	}
	if x2 == x && y2 == y {
		return clickHere(ctx, tab, x, y, button, count)
	}
	return click(ctx, tab, x2, y2, button, count)
}

// pointerAt clicks, double-clicks or hovers a point of the viewport: what
// the agent saw in a screenshot, whatever the node there is.
func pointerAt(ctx context.Context, tab cdp.Session, a action.Action, button input.MouseButton) error {
	x, y, err := a.Point()
	if err != nil {
		return err
	}
	if err := mouse(ctx, tab, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0); err != nil || a.Kind == action.Hover {
		return err
	}
	if a.Kind == action.DoubleClick {
		return clickHere(ctx, tab, x, y, button, 2)
	}
	return clickHere(ctx, tab, x, y, button, max(a.Count, 1))
}

// focus scrolls the node into view and gives it keyboard focus.
func focus(ctx context.Context, h *handle) error {
	_, _ = cdp.Call(ctx, h.t, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: h.id})
	if _, err := cdp.Call(ctx, h.t, dom.Focus, dom.FocusParams{BackendNodeID: h.id}); err != nil {
		if e := staleOr(err); e != err {
			return e
		}
		return &session.ActionError{Reason: "it cannot take keyboard focus", Err: err}
	}
	return nil
}

// selectContentsJS selects everything in a text field or editable element,
// so the next key replaces it.
const selectContentsJS = `function() {
  const el = this;
  if (el.select) { el.select(); return; }
  const r = document.createRange(); r.selectNodeContents(el);
  const s = getSelection(); s.removeAllRanges(); s.addRange(r);
}`

// typeText focuses a text field and types into it: clear selects its
// contents and deletes them with a real Backspace; the text goes in as one
// trusted insertText; submit presses Enter.
func (b *Browser) typeText(ctx context.Context, tab cdp.Session, h *handle, a action.Action) error {
	if err := needNode(h, a.Kind); err != nil {
		return err
	}
	if err := checkEditable(ctx, h); err != nil {
		return err
	}
	if err := focus(ctx, h); err != nil {
		return err
	}
	if a.Credential != "" {
		// Marked before the value goes in: no reading, this session's or
		// another canopy's on the same browser, sees it unmasked.
		if err := h.call(ctx, `function(name) { this.setAttribute('`+credentialAttr+`', name); }`, nil, a.Credential); err != nil {
			return err
		}
	}
	if a.Clear {
		if err := h.call(ctx, selectContentsJS, nil); err != nil {
			return err
		}
		if err := press(ctx, tab, []keys.Chord{{Key: "Backspace"}}); err != nil {
			return err
		}
	}
	if a.Text != "" {
		if err := insertText(ctx, tab, a.Text); err != nil {
			return err
		}
	}
	if a.Submit {
		return press(ctx, tab, []keys.Chord{{Key: "Enter"}})
	}
	return nil
}

// press sends keys, to the focused element or, with a target, to it after
// focusing it.
func (b *Browser) press(ctx context.Context, tab cdp.Session, h *handle, keySeq string) error {
	chords, err := keys.Parse(keySeq)
	if err != nil {
		return err
	}
	if h != nil {
		if err := focus(ctx, h); err != nil {
			return err
		}
	}
	return press(ctx, tab, chords)
}

// check clicks a checkbox, radio or switch unless it is already in the
// wanted state.
func (b *Browser) check(ctx context.Context, tab cdp.Session, h *handle, a action.Action) (session.Output, error) {
	if err := needNode(h, a.Kind); err != nil {
		return session.Output{}, err
	}
	want := a.Kind == action.Check
	if h.node.States.Has(tree.Checked) == want {
		return session.Output{Unchanged: true}, nil
	}
	if !want && h.node.Role == "radio" {
		return session.Output{}, &session.ActionError{Reason: "a radio button is unchecked by checking another one"}
	}
	x, y, err := b.point(ctx, h, true)
	var ae *session.ActionError
	if errors.As(err, &ae) && strings.HasPrefix(ae.Reason, "it is not visible") {
		// Styled checkboxes hide the input and show its label: click that.
		var ok bool
		if lerr := h.call(ctx, `function() { const l = this.labels && this.labels[0]; if (!l) return false; l.click(); return true; }`, &ok); lerr == nil && ok {
			return session.Output{}, nil
		}
	}
	if err != nil {
		return session.Output{}, err
	}
	return session.Output{}, click(ctx, tab, x, y, input.MouseButtonLeft, 1)
}

// replaceTab loads a URL in a new tab and closes t, whose page has a
// dialog open, opens dialog after dialog, or crashed (why says which):
// such a tab can hold a navigation in it up, and closing it ends that for
// good.
func (b *Browser) replaceTab(ctx context.Context, t *tab, a action.Action, why string) (session.Output, error) {
	n, err := b.newTab(ctx, a.URL)
	if err != nil {
		return session.Output{}, err
	}
	if _, err := b.WaitLoaded(ctx, a.Limit()); err != nil {
		return session.Output{}, err
	}
	c := chromedp.FromContext(b.browserCtx)
	if _, err := cdp.Call(ctx, c.Browser, target.CloseTarget, target.CloseTargetParams{TargetID: t.id}); err != nil {
		b.log.Debug("close the storming tab", "err", err)
	}
	b.currentWatch().dropOutcome(fmt.Sprintf("opened tab %d ", n))
	return session.Output{Outcomes: []string{"closed the tab whose page " + why + "; " + trimScheme(action.NormalizeURL(a.URL)) + " opened in a new one"}, Replaced: true}, nil
}

// navigate loads a URL, or goes back, forward or reloads.
func (b *Browser) navigate(ctx context.Context, a action.Action) (session.Output, error) {
	tctx := b.tabCtx()
	t := chromedpTarget(tctx)
	b.unstick(ctx, t) // a script that never yields would hold the new page up
	if cur := b.curTab(); a.Nav == "reload" && cur != nil && cur.watch != nil && cur.watch.hasCrashed() {
		return b.replaceTab(ctx, cur, action.Action{URL: b.tabURL(ctx), Timeout: a.Timeout}, "crashed")
	}
	if line, ok := b.navigateExternal(a.URL); ok {
		return session.Output{Outcomes: []string{line}}, nil
	}
	if cur := b.curTab(); cur != nil && cur.watch.held() != "" && (a.Nav == "reload" || a.URL != "" && !action.External(a.URL)) {
		if a.URL == "" {
			a = action.Action{URL: b.tabURL(ctx), Timeout: a.Timeout}
		}
		return b.replaceTab(ctx, cur, a, "was held by headless Chromium's hidden question about a "+cur.watch.held()+": link")
	}
	switch a.Nav {
	case "reload":
		_, err := cdp.Call(ctx, t, page.Reload, page.ReloadParams{})
		return session.Output{}, err
	case "back", "forward":
		hist, err := cdp.Call(ctx, t, page.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return session.Output{}, err
		}
		i := int(hist.CurrentIndex) - 1
		if a.Nav == "forward" {
			i = int(hist.CurrentIndex) + 1
		}
		if i < 0 || i >= len(hist.Entries) {
			return session.Output{}, fmt.Errorf("no page to go %s to", a.Nav)
		}
		_, err = cdp.Call(ctx, t, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: hist.Entries[i].ID})
		return session.Output{}, err
	}
	if t := b.curTab(); t != nil && t.watch != nil {
		switch {
		case t.watch.hasCrashed():
			return b.replaceTab(ctx, t, a, "crashed")
		case t.watch.storm.active(time.Now()):
			return b.replaceTab(ctx, t, a, "kept opening dialogs")
		}
	}
	load, err := b.Navigate(ctx, a.URL, a.Limit())
	if note := load.Note(); note != "" && err == nil {
		return session.Output{Outcomes: []string{"(" + note + ")"}}, nil
	}
	return session.Output{}, err
}
