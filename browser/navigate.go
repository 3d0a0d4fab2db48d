package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
)

// DefaultLoadTimeout caps how long Navigate waits for the load event.
const DefaultLoadTimeout = 10 * time.Second

// ErrNavigation marks a URL that could not be loaded (bad host, refused
// connection, bad scheme): the user's input, not the machine.
var ErrNavigation = errors.New("navigation failed")

// Load says how a navigation ended.
type Load struct {
	// Loading is true when the load event had not fired by the cap; the page
	// is shown as it was then.
	Loading bool
	Waited  time.Duration
}

// Note returns the header note for an unfinished load, or "".
func (l Load) Note() string {
	if !l.Loading {
		return ""
	}
	return fmt.Sprintf("still loading after %s", l.Waited.Round(100*time.Millisecond))
}

// Navigate loads url in the current tab and waits for its load event, up to
// limit (0 = DefaultLoadTimeout). A page that does not finish in time is not
// an error: Load.Loading says so and the caller notes it. A URL that cannot
// be loaded is an error wrapping ErrNavigation; one that Options.Domains
// refuses, itself or at a redirect hop, an error wrapping policy.ErrDenied
// that says so.
func (b *Browser) Navigate(ctx context.Context, url string, limit time.Duration) (Load, error) {
	url = action.NormalizeURL(url)
	if err := b.refusedUnseen(url); err != nil {
		return Load{}, err
	}
	c := chromedp.FromContext(b.tabCtx())
	if c == nil || c.Target == nil {
		return Load{}, envErrorf("the browser has no open tab")
	}
	wctx, cancel := b.waitContext(ctx, limit)
	defer cancel()
	loaded := chromedp.Events(wctx, page.LoadEventFired) // subscribe before navigating
	start := time.Now()
	if t := b.curTab(); t != nil {
		b.interceptor.forget(cdp.FrameID(t.id)) // a tab's main frame has its target's id
	}
	res, err := chromedp.Call(wctx, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		if ctx.Err() != nil {
			return Load{}, fmt.Errorf("navigate to %s: %w", url, ctx.Err())
		}
		if wctx.Err() != nil {
			// The server has not answered by the cap: the page is shown as
			// it is, and the note says it is still loading.
			return Load{Loading: true, Waited: time.Since(start)}, nil
		}
		return Load{}, fmt.Errorf("navigate to %s: %w: %w", url, ErrNavigation, err)
	}
	if res.ErrorText != "" && action.External(url) {
		// Not loaded but handed to the desktop, or asked about: the
		// action's watch says which (schemes.go).
		return Load{}, nil
	}
	if res.ErrorText != "" {
		if err := b.refusedNavigation(res.FrameID, url); err != nil {
			return Load{}, err // --domains refused it, or a redirect hop
		}
		return Load{}, fmt.Errorf("cannot load %s: %s: %w", url, res.ErrorText, ErrNavigation)
	}
	if res.LoaderID == "" {
		return Load{}, nil // same-document navigation: no load event comes
	}
	for _, err := range loaded {
		if err != nil {
			break
		}
		return Load{Waited: time.Since(start)}, nil
	}
	if ctx.Err() != nil {
		return Load{}, fmt.Errorf("navigate to %s: %w", url, ctx.Err())
	}
	return Load{Loading: true, Waited: time.Since(start)}, nil
}

// refusedUnseen refuses, under --domains, a URL the request interception
// never sees: an external scheme's (handed to another application) and a
// page the browser makes itself (data:, chrome:, about:). The
// interceptor judges the rest (http, https, file:, a view-source: page's
// request) as it loads.
func (b *Browser) refusedUnseen(url string) error {
	if interceptSees(url) {
		return nil
	}
	if err := b.urlPolicy().Allows(url); err != nil {
		return fmt.Errorf("%s: %w", trimScheme(cutURL(url)), err)
	}
	return nil
}

// interceptSees says whether the request interception judges a document
// at url as it loads: a network request (http, https), a file (Chromium
// pauses file: requests too), a view-source: page (the request of the page
// inside it).
func interceptSees(url string) bool {
	switch action.Scheme(url) {
	case "http", "https", "file", "view-source":
		return true
	}
	return false
}

// waitContext returns a context for waiting on the tab's events: events are
// tied to the tab's chromedp context, and this one ends at limit (0 =
// DefaultLoadTimeout) or when ctx ends, whichever is first.
func (b *Browser) waitContext(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if limit <= 0 {
		limit = DefaultLoadTimeout
	}
	wctx, cancel := context.WithTimeout(b.tabCtx(), limit)
	stop := context.AfterFunc(ctx, cancel)
	return wctx, func() { stop(); cancel() }
}

// WaitLoaded waits, up to limit, until the current tab's document has
// finished loading — for a tab canopy attached to, which may still be
// loading. A page still loading at the cap is not an error: Load.Loading
// says so.
func (b *Browser) WaitLoaded(ctx context.Context, limit time.Duration) (Load, error) {
	wctx, cancel := b.waitContext(ctx, limit)
	defer cancel()
	loaded := chromedp.Events(wctx, page.LoadEventFired) // subscribe before looking
	start := time.Now()
	for {
		state, err := chromedp.Run(wctx, chromedp.Evaluate[string](`document.readyState + ' ' + location.href`))
		if err == nil && strings.HasPrefix(state, "complete ") && !strings.HasSuffix(state, " about:blank") {
			return Load{Waited: time.Since(start)}, nil
		}
		if err != nil && ctx.Err() != nil {
			return Load{}, ctx.Err()
		}
		// Not loaded yet: wait for the next load event, then look again
		// (the event may belong to a frame that navigated since).
		got := false
		for _, err := range loaded {
			got = err == nil
			break
		}
		if !got {
			if ctx.Err() != nil {
				return Load{}, ctx.Err()
			}
			return Load{Loading: true, Waited: time.Since(start)}, nil
		}
	}
}

// navKey is the settle key of a frame's requested navigation, until the
// frame starts loading (a frame of the page) or a document commits or a
// download begins (the page itself: its loading may end in a download,
// whose start can come well after the loading stopped on a loaded
// machine).
func navKey(frame cdp.FrameID) string { return "nav:" + string(frame) }

// frameNavHold is how long a requested navigation may hold an action's
// wait: one that never goes on (an external scheme, a 204, one
// cancelled) stops holding then.
const frameNavHold = 300 * time.Millisecond
