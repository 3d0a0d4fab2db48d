package browser

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"

	"github.com/canopy-dev/canopy/policy"
)

// Speculative loading. A page can ask the browser to fetch or even render
// documents ahead of a click: <script type="speculationrules"> (or the
// Speculation-Rules response header) lists URLs to prefetch or prerender.
// Measured on Chromium 156:
//   - a speculation-rules prefetch is made by the browser process and never
//     passes the Fetch domain, on the browser's session or the tab's, for
//     any resource type (the Preload and Network domains only report it):
//     the request reaches a host --domains refuses;
//   - a navigation served from a prefetched response does not pass it
//     either: a click on a link to a refused host shows its page, and its
//     scripts run, with no request paused;
//   - prerendering is off in a tab that has a DevTools session attached to
//     its page target (canopy's), on at once in any other tab, where the
//     prerender is served from the prefetch and its scripts run;
//   - the profile preference "Preload pages" off (net.network_prediction_
//     options 2) turns both off for the whole browser
//     (PrefetchNotEligiblePreloadingDisabled, PreloadingDisabled).
//
// So: a browser canopy launches starts with preloading off in its profile
// (preloadPrefs); every tab canopy attaches to has prerendering turned off
// (Page.setPrerenderingAllowed), whatever Chromium does for DevTools
// sessions; and under --domains, in a browser canopy attached to (whose
// profile is the user's), the speculation guard (preload.js) takes a page's
// speculation rules out before the browser reads them, and the interceptor
// strips the Speculation-Rules header from every document it lets through
// (docs/decisions/2026-11-28-url-policy-every-route.md).

// preloadJS is the speculation guard.
//
//go:embed preload.js
var preloadJS string

// preloadPrefs are the profile preferences that turn Chromium's preloading
// off: "Preload pages" set to none, which speculation rules (prefetch and
// prerender), <link rel=prerender> and the browser's own predictions (the
// address bar's, on hover) all obey.
func preloadPrefs() map[string]any {
	return map[string]any{"net": map[string]any{"network_prediction_options": 2}}
}

// urlPolicy is the --domains list the browser holds to, or nil.
func (b *Browser) urlPolicy() *policy.DomainList {
	if b == nil || b.interceptor == nil {
		return nil
	}
	return b.interceptor.domains
}

// guardPreloads keeps a tab from speculative loading: prerendering off, and
// under --domains in a browser canopy did not launch, the speculation guard
// in every document. A browser that cannot turn prerendering off (one older
// than the command) is logged: a tab canopy attached to does not
// prerender in Chromium 156 anyway. The guard failing to install fails the
// tab's start: --domains fails closed.
func (b *Browser) guardPreloads(ctx context.Context, t cdp.Session) error {
	if _, err := cdp.Call(ctx, t, page.SetPrerenderingAllowed, page.SetPrerenderingAllowedParams{IsAllowed: false}); err != nil {
		b.log.Debug("prerendering", "err", err)
	}
	if b.launched || b.urlPolicy() == nil {
		return nil // the profile turned preloading off
	}
	_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: preloadJS, WorldName: canopyWorld, RunImmediately: new(true),
	})
	if err != nil {
		return fmt.Errorf("--domains: keep the tab from prefetching what the list refuses: %w", err)
	}
	return nil
}

// speculationHeader is the response header that points a document at a
// file of speculation rules.
const speculationHeader = "Speculation-Rules"

// stripsRules says whether the interceptor takes the Speculation-Rules
// header off the documents it lets through: in a browser canopy attached
// to (a launched one does not preload).
func (i *interceptor) stripsRules() bool { return !i.b.launched }

// withoutRules is a paused response's headers without Speculation-Rules,
// and whether there was one.
func withoutRules(headers []*fetch.HeaderEntry) ([]*fetch.HeaderEntry, bool) {
	kept := make([]*fetch.HeaderEntry, 0, len(headers))
	for _, h := range headers {
		if h != nil && strings.EqualFold(h.Name, speculationHeader) {
			continue
		}
		kept = append(kept, h)
	}
	return kept, len(kept) != len(headers)
}
