package browser

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/settle"
)

// interceptor enforces --domains (Options.Domains) on every document the
// browser loads: a top-level navigation, each hop of a redirect, a frame
// (cross-site, out-of-process frames included), a popup or a new tab, a
// form submission, a link click. A refused request is failed before it
// leaves the browser (net::ERR_BLOCKED_BY_CLIENT) and reported as an
// outcome line of the action in progress; everything else continues.
//
// It intercepts once, on the browser's own session: Fetch enabled on the
// browser target pauses the requests of every target of the browser — tabs,
// popups, out-of-process frames, targets that appear later — so there is
// no target to attach to before it runs and no race with a popup's first
// request (docs/decisions/2026-11-23-domains-allowlist.md).
//
// Only documents are judged (Fetch's resource type Document covers main
// frames and subframes). The subresources a page loads (scripts, images,
// fonts, fetch/XHR) are the page's own business: --domains says where the
// agent may browse, and judging every subresource would pause each one
// for a round trip through canopy and break the many sites that load from
// CDNs. What the agent can see and act in is a document, and every
// document is judged.
type interceptor struct {
	b       *Browser
	domains *policy.DomainList

	mu      sync.Mutex
	refused []refusal // the latest refusals, oldest first, at most maxRefusals
}

// maxRefusals bounds the refusals kept for Navigate to explain its failure.
const maxRefusals = 32

// refusal is one document request the interceptor failed.
type refusal struct {
	frame    cdp.FrameID
	url      string
	method   string
	redirect bool // a redirect hop, not the first request
	page     bool // the main frame of a tab, not a frame inside a page
	err      error
}

// line is the refusal's outcome line.
func (r refusal) line() string {
	u := trimScheme(cutURL(r.url))
	method := ""
	if r.method != "" && r.method != http.MethodGet {
		method = r.method + " "
	}
	switch {
	case !r.page:
		return fmt.Sprintf("refused %sframe %s (not allowed by --domains)", method, u)
	case r.redirect:
		return fmt.Sprintf("refused %sredirect to %s (not allowed by --domains)", method, u)
	}
	return fmt.Sprintf("refused %snavigation to %s (not allowed by --domains)", method, u)
}

// cutURL shortens a long URL for an outcome line.
func cutURL(u string) string {
	const limit = 120
	if r := []rune(u); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return u
}

// intercept starts enforcing d on every document request of the browser.
// It fails, and with it the start, when the browser cannot intercept:
// --domains fails closed.
func (b *Browser) intercept(ctx context.Context, d *policy.DomainList) error {
	if d == nil {
		return nil
	}
	i := &interceptor{b: b, domains: d}
	if err := chromedp.ListenBrowser(b.browserCtx, i.onEvent); err != nil {
		return fmt.Errorf("--domains: listen to the browser: %w", err)
	}
	c := chromedp.FromContext(b.browserCtx)
	_, err := cdp.Call(ctx, c.Browser, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{
		URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageRequest,
	}}})
	if err != nil {
		return envErrorf("--domains: the browser cannot intercept requests, so canopy cannot hold it to the list: %w", err)
	}
	b.interceptor = i
	return nil
}

// onEvent runs on chromedp's reader goroutine, so it must not call CDP:
// it judges each paused request (a pure function of its URL) and hands it
// to a goroutine of its own to answer. A refused URL is marked in the
// action's watch here, before any later event of the browser is seen, so
// the tab that shows the browser's error page for it is not reported as
// having gone there.
func (i *interceptor) onEvent(ev any) {
	e, ok := ev.(*fetch.EventRequestPaused)
	if !ok {
		return
	}
	if e.ResponseStatusCode != 0 || e.ResponseErrorReason != "" || e.ResponseHeaders != nil {
		// A response canopy asked to see (stripsRules): judged already.
		w := i.b.currentWatch()
		w.send(settle.Event{Kind: settle.Busy, Key: "fetch:" + string(e.RequestID)})
		go i.answerResponse(e, w)
		return
	}
	u := ""
	if e.Request != nil {
		u = e.Request.URL
	}
	err := i.domains.Allows(u)
	w := i.b.currentWatch()
	if err != nil {
		w.refuseURL(u)
	}
	// The action does not settle while a document waits for canopy's
	// answer (a popup's, in a tab the action's watch does not follow).
	w.send(settle.Event{Kind: settle.Busy, Key: "fetch:" + string(e.RequestID)})
	go i.answer(e, u, err, w)
}

// browser is the browser's connection and a context for one answer to a
// paused request; ok is false when the browser is gone.
func (i *interceptor) browser() (*chromedp.Context, context.Context, context.CancelFunc, bool) {
	c := chromedp.FromContext(i.b.browserCtx)
	if c == nil || c.Browser == nil {
		return nil, nil, nil, false
	}
	ctx, cancel := context.WithTimeout(i.b.browserCtx, 30*time.Second)
	return c, ctx, cancel, true
}

// answer continues an allowed request and fails a refused one (err), after
// noting it (for Navigate) and reporting it to the watch of the action in
// progress when it was paused (w, or nil between actions).
func (i *interceptor) answer(e *fetch.EventRequestPaused, u string, err error, w *watch) {
	defer w.send(settle.Event{Kind: settle.Idle, Key: "fetch:" + string(e.RequestID)})
	c, ctx, cancel, ok := i.browser()
	if !ok {
		return
	}
	defer cancel()
	if err == nil {
		params := fetch.ContinueRequestParams{RequestID: e.RequestID}
		if i.stripsRules() {
			params.InterceptResponse = new(true) // answerResponse
		}
		if _, cerr := cdp.Call(ctx, c.Browser, fetch.ContinueRequest, params); cerr != nil {
			i.b.log.Debug("continue request", "url", u, "err", cerr)
		}
		return
	}
	r := refusal{frame: e.FrameID, url: u, redirect: e.RedirectedRequestID != "", err: err}
	if e.Request != nil {
		r.method = e.Request.Method
	}
	// A tab's main frame has the tab's target id; a frame inside a page
	// is no page target (an out-of-process frame is an "iframe" one).
	if info, ierr := cdp.Call(ctx, c.Browser, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(e.FrameID)}); ierr == nil && info.TargetInfo != nil {
		r.page = info.TargetInfo.Type == "page"
	}
	i.note(r)
	if w != nil {
		w.outcome(r.line())
	} else {
		i.b.log.Info("refused a request between actions", "url", u, "reason", err)
	}
	if _, ferr := cdp.Call(ctx, c.Browser, fetch.FailRequest, fetch.FailRequestParams{
		RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient,
	}); ferr != nil {
		i.b.log.Debug("fail request", "url", u, "err", ferr)
	}
}

// answerResponse lets an allowed document's response through, without
// the Speculation-Rules header that would have the browser fetch rules to
// prefetch or prerender by (preload.go).
func (i *interceptor) answerResponse(e *fetch.EventRequestPaused, w *watch) {
	defer w.send(settle.Event{Kind: settle.Idle, Key: "fetch:" + string(e.RequestID)})
	c, ctx, cancel, ok := i.browser()
	if !ok {
		return
	}
	defer cancel()
	params := fetch.ContinueResponseParams{RequestID: e.RequestID}
	if kept, had := withoutRules(e.ResponseHeaders); had && e.ResponseErrorReason == "" {
		params.ResponseCode, params.ResponsePhrase, params.ResponseHeaders = e.ResponseStatusCode, e.ResponseStatusText, kept
	}
	if _, err := cdp.Call(ctx, c.Browser, fetch.ContinueResponse, params); err != nil {
		// A response that failed cannot be continued as one: let the
		// request go on to its failure.
		if _, cerr := cdp.Call(ctx, c.Browser, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID}); cerr != nil {
			i.b.log.Debug("continue response", "err", err, "then", cerr)
		}
	}
}

// note keeps a refusal for Navigate, dropping the oldest beyond
// maxRefusals.
func (i *interceptor) note(r refusal) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.refused = append(i.refused, r)
	if n := len(i.refused) - maxRefusals; n > 0 {
		i.refused = append(i.refused[:0:0], i.refused[n:]...)
	}
}

// forget drops the refusals of frame, before a navigation of it.
func (i *interceptor) forget(frame cdp.FrameID) {
	if i == nil {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	kept := i.refused[:0]
	for _, r := range i.refused {
		if r.frame != frame {
			kept = append(kept, r)
		}
	}
	i.refused = kept
}

// last returns the latest refusal of frame since it was forgotten.
func (i *interceptor) last(frame cdp.FrameID) (refusal, bool) {
	if i == nil {
		return refusal{}, false
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	for k := len(i.refused) - 1; k >= 0; k-- {
		if i.refused[k].frame == frame {
			return i.refused[k], true
		}
	}
	return refusal{}, false
}

// refusedNavigation explains a navigation of frame that failed because the
// interceptor refused it (the URL asked for, or a redirect hop): an error
// wrapping policy.ErrDenied, or nil when the failure had another cause.
func (b *Browser) refusedNavigation(frame cdp.FrameID, url string) error {
	r, ok := b.interceptor.last(frame)
	if !ok {
		return nil
	}
	if r.redirect || !sameDocURL(r.url, url) {
		return fmt.Errorf("%s redirected to %s: %w", trimScheme(cutURL(url)), trimScheme(cutURL(r.url)), r.err)
	}
	return fmt.Errorf("%s: %w", trimScheme(cutURL(url)), r.err)
}

// sameDocURL compares two URLs without their fragments.
func sameDocURL(a, b string) bool {
	a, _, _ = strings.Cut(a, "#")
	b, _, _ = strings.Cut(b, "#")
	return a == b
}
