package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/settle"
)

// The request interception (intercept.go) judges what goes over the
// network: http(s), and file: (Chromium 156 pauses those too). Pages the
// browser makes itself never pass it: data:, chrome:, about: other than
// blank. canopy's own navigate refuses them (the policy, and Navigate
// itself), but a tab can still be sent there by the browser's own UI — the
// address bar typed into at the sensitive tier, a shortcut (ctrl+h opens
// chrome://history) — which --domains holds at every tier. So a tab canopy
// watches that starts such a navigation under --domains is stopped
// (Page.stopLoading: in time for data: pages and some chrome: ones), and
// one that arrives all the same (a chrome: page that swaps the renderer
// first) is left for about:blank. Each is an outcome line of the action.

// unseenGuard stops a tab's navigations to refused URLs the interception
// does not see.
type unseenGuard struct {
	b   *Browser
	tw  *tabWatch
	ctx context.Context // the tab's
}

// unseenCap bounds the guard's calls to the tab.
const unseenCap = 10 * time.Second

// watchUnseen starts the guard on the tab of tabCtx, under --domains.
func (b *Browser) watchUnseen(tabCtx context.Context, tw *tabWatch) error {
	if b.urlPolicy() == nil {
		return nil
	}
	g := &unseenGuard{b: b, tw: tw, ctx: tabCtx}
	if err := chromedp.Listen(tabCtx, g.onEvent); err != nil {
		return fmt.Errorf("--domains: watch the tab's navigations: %w", err)
	}
	return nil
}

// onEvent runs on chromedp's reader goroutine: it judges and hands the
// calls to goroutines.
func (g *unseenGuard) onEvent(ev any) {
	switch e := ev.(type) {
	case *page.EventFrameStartedNavigating:
		if string(e.FrameID) == string(g.tw.id) && g.refused(e.URL) != nil {
			go g.stop(e.URL)
		}
	case *page.EventFrameNavigated:
		f := e.Frame
		if f == nil || f.ParentID != "" || f.UnreachableURL != "" {
			return // a frame of the page, or the error page of a refusal
		}
		if g.refused(f.URL) != nil {
			go g.leave(f.URL)
		}
	}
}

// refused judges a URL the interception does not see, nil for the rest.
func (g *unseenGuard) refused(u string) error {
	if u == "" || interceptSees(u) {
		return nil
	}
	return g.b.urlPolicy().Allows(u)
}

// stop stops a navigation that has not arrived yet, and says it was
// refused. One that arrives all the same is left (leave).
func (g *unseenGuard) stop(u string) {
	w := g.tw.current()
	key := "unseen:" + u
	w.send(settle.Event{Kind: settle.Busy, Key: key})
	defer w.send(settle.Event{Kind: settle.Idle, Key: key})
	w.refuseURL(u)
	w.outcome(fmt.Sprintf("refused navigation to %s (%s)", trimScheme(cutURL(u)), denial(g.refused(u))))
	ctx, cancel := context.WithTimeout(g.ctx, unseenCap)
	defer cancel()
	if _, err := cdp.Call(ctx, chromedp.FromContext(g.ctx).Target, page.StopLoading, cdp.Empty{}); err != nil {
		g.b.log.Debug("stop a refused navigation", "url", u, "err", err)
	}
}

// leave sends a tab that arrived at a refused URL to about:blank.
func (g *unseenGuard) leave(u string) {
	w := g.tw.current()
	key := "unseen:" + u + " leave"
	w.send(settle.Event{Kind: settle.Busy, Key: key})
	defer w.send(settle.Event{Kind: settle.Idle, Key: key})
	ctx, cancel := context.WithTimeout(g.ctx, unseenCap)
	defer cancel()
	shown := trimScheme(cutURL(u))
	if _, err := cdp.Call(ctx, chromedp.FromContext(g.ctx).Target, page.Navigate, page.NavigateParams{URL: "about:blank"}); err != nil {
		g.b.log.Warn("leave a refused page", "url", u, "err", err)
		w.outcome(fmt.Sprintf("the browser loaded %s before canopy could stop it, and canopy could not leave it: acting in it is refused", shown))
		return
	}
	w.outcome(fmt.Sprintf("the browser loaded %s before canopy could stop it: canopy left it for about:blank", shown))
}
