package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/extract"
	"github.com/canopy-dev/canopy/session"
)

// defaultScroll is how far scroll moves without an amount: most of a
// viewport, so consecutive pages overlap a little.
const defaultScroll = 600

// scroll brings the node into view, or turns the mouse wheel over it (or
// over the page) in a direction. The outcome line says where the page is.
func (b *Browser) scroll(ctx context.Context, tab cdp.Session, h *handle, a action.Action) (session.Output, error) {
	if a.Direction == "" {
		if h == nil {
			return session.Output{}, fmt.Errorf("scroll needs a target to bring into view, or a direction")
		}
		_, _, err := b.point(ctx, h, false)
		return session.Output{}, err
	}
	amount := float64(a.Amount)
	if amount <= 0 {
		amount = defaultScroll
	}
	var dx, dy float64
	switch a.Direction {
	case "up":
		dy = -amount
	case "down":
		dy = amount
	case "left":
		dx = -amount
	case "right":
		dx = amount
	}
	x, y := 640.0, 400.0
	if m, err := cdp.Call(ctx, tab, page.GetLayoutMetrics, cdp.Empty{}); err == nil && m.CSSLayoutViewport != nil {
		x, y = float64(m.CSSLayoutViewport.ClientWidth)/2, float64(m.CSSLayoutViewport.ClientHeight)/2
	}
	if h != nil {
		var err error
		if x, y, err = b.point(ctx, h, false); err != nil {
			return session.Output{}, err
		}
	}
	before := scrollPos(ctx, b)
	if err := wheel(ctx, tab, x, y, dx, dy); err != nil {
		return session.Output{}, err
	}
	// The wheel scrolls asynchronously; the executor settles afterwards.
	return session.Output{Outcomes: []string{"scrolled " + a.Direction + before}}, nil
}

// scrollPos describes the page's scroll position for the outcome line.
func scrollPos(ctx context.Context, b *Browser) string {
	pos, err := chromedp.Run(b.tabCtx(), chromedp.Evaluate[[]float64](`[scrollY, document.documentElement.scrollHeight - innerHeight]`))
	if err != nil || len(pos) != 2 {
		return ""
	}
	return fmt.Sprintf(" from %.0f of %.0f px", pos[0], max(pos[1], 0))
}

// evaluate runs a script in the page and returns its JSON result.
func (b *Browser) evaluate(ctx context.Context, script string) (session.Output, error) {
	res, err := cdp.Call(ctx, chromedpTarget(b.tabCtx()), runtime.Evaluate, runtime.EvaluateParams{
		Expression: script, ReturnByValue: new(true), AwaitPromise: new(true), UserGesture: new(true),
	})
	if err != nil {
		return session.Output{}, fmt.Errorf("evaluate: %w", err)
	}
	if res.ExceptionDetails != nil {
		return session.Output{}, fmt.Errorf("the script threw: %s", exceptionText(res.ExceptionDetails))
	}
	return session.Output{Text: remoteText(res.Result)}, nil
}

// remoteText renders an evaluation result: JSON for values, the
// description for what cannot be serialised.
func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return "undefined"
	}
	if len(o.Value) > 0 {
		var v any
		if json.Unmarshal(o.Value, &v) == nil {
			out, err := json.Marshal(v)
			if err == nil {
				return string(out)
			}
		}
		return string(o.Value)
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Type)
}

// extract returns the page's (or a node's) content in a format, a window
// of ExtractWindow characters of its text at a time (see readHTML).
func (b *Browser) extract(ctx context.Context, h *handle, a action.Action) (session.Output, error) {
	f, err := extract.ParseFormat(a.Format)
	if err != nil {
		return session.Output{}, err
	}
	url := b.tabURL(ctx) // from the browser, within the call's deadline
	p, err := b.readHTML(ctx, h, a.From, ExtractWindow)
	if err != nil {
		return session.Output{}, fmt.Errorf("read the page's HTML: %w", staleOr(err))
	}
	text, err := extract.FromHTML(f, p.HTML, url, h == nil)
	if err != nil {
		return session.Output{}, err
	}
	out := session.Output{Text: strings.TrimRight(text, "\n") + "\n"}
	if p.more() {
		out.More = fmt.Sprintf("… %d more characters of text (%s)", p.Total-p.End, nextExtract(a, p.End))
	}
	return out, nil
}

// nextExtract is the step that reads the window after one ending at end.
func nextExtract(a action.Action, end int) string {
	parts := []string{"extract"}
	if a.Target != "" {
		parts = append(parts, a.Target)
	}
	return strings.Join(append(parts, a.Format, "from", strconv.Itoa(end)), " ")
}

// tabsAction lists, opens, switches or closes tabs.
func (b *Browser) tabsAction(ctx context.Context, a action.Action) (session.Output, error) {
	switch a.Nav {
	case "", "list":
		tabs, err := b.Tabs(ctx)
		if err != nil {
			return session.Output{}, err
		}
		return session.Output{Text: FormatTabs(tabs)}, nil
	case "new":
		n, err := b.newTab(ctx, a.URL)
		if err != nil {
			return session.Output{}, err
		}
		if a.URL != "" {
			if _, err := b.WaitLoaded(ctx, 0); err != nil {
				return session.Output{}, err
			}
		}
		// The browser's own "opened tab N … (tabs switch N)" line, if it came
		// first, is this one said worse.
		b.currentWatch().dropOutcome(fmt.Sprintf("opened tab %d ", n))
		line := fmt.Sprintf("opened tab %d", n)
		if a.URL != "" {
			line += " " + trimScheme(a.URL)
		}
		return session.Output{Outcomes: []string{line}, Replaced: true}, nil
	case "switch":
		if err := b.switchTab(ctx, a.Tab); err != nil {
			return session.Output{}, err
		}
		return session.Output{Outcomes: []string{fmt.Sprintf("switched to tab %d", a.Tab)}, Replaced: true}, nil
	case "close":
		if err := b.closeTab(ctx, a.Tab); err != nil {
			return session.Output{}, err
		}
		return session.Output{Replaced: true}, nil
	}
	return session.Output{}, fmt.Errorf("tabs %q: use list, new, switch or close", a.Nav)
}

// answerDialog accepts or dismisses the open JavaScript dialog.
func (b *Browser) answerDialog(ctx context.Context, t *tab, a action.Action) (session.Output, error) {
	d := t.watch.openDialog()
	if d == nil {
		return session.Output{}, fmt.Errorf("no JavaScript dialog is open")
	}
	gone := t.watch.goneCh()
	p := page.HandleJavaScriptDialogParams{Accept: a.Nav == "accept", PromptText: a.Text}
	if _, err := cdp.Call(ctx, chromedpTarget(t.ctx), page.HandleJavaScriptDialog, p); err != nil {
		return session.Output{}, fmt.Errorf("answer the dialog: %w", err)
	}
	// Wait for the browser to say it closed, so what follows (a navigate
	// that dismissed it first) does not take it for still open.
	if gone != nil {
		select {
		case <-gone:
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
	verb := "accepted"
	if a.Nav == "dismiss" {
		verb = "dismissed"
	}
	return session.Output{Outcomes: []string{fmt.Sprintf("%s %s %s", verb, d.Type, quoteText(d.Message))}}, nil
}
