package browser

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"

	"github.com/canopy-dev/canopy/session"
)

// Failed requests and console errors an action caused (docs/diffs.md): the
// watch of an action notes, from just before acting until it settled,
// the requests that started in that window and then failed (an HTTP
// status of 400 or more, or a network error), uncaught exceptions and
// console.error calls. Network and Runtime events are on for every tab
// already (chromedp enables both), so this costs no call, only a map of
// the window's requests.

// maxProblems bounds what one watch keeps: a page firing requests in a
// loop must not grow it without end. The reply prints a few anyway.
const maxProblems = 200

// maxProblemText cuts a console message or URL in a problem line.
const maxProblemText = 160

// problems is what a watch collects for the problem lines.
type problems struct {
	reqs     map[network.RequestID]*pendingReq // requests started in the window
	list     []session.Problem                 // at most maxProblems; later ones are dropped
	reported map[network.RequestID]bool
}

// pendingReq is a request the window saw start.
type pendingReq struct {
	method, url string
	typ         network.ResourceType
}

// requestSent notes a request that started while the action ran (or its
// redirect to another URL).
func (w *watch) requestSent(e *network.EventRequestWillBeSent) {
	if w == nil || e.Request == nil || strings.HasPrefix(e.Request.URL, "data:") {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.probs.reqs == nil {
		w.probs.reqs = map[network.RequestID]*pendingReq{}
	}
	if len(w.probs.reqs) >= 4*maxProblems && w.probs.reqs[e.RequestID] == nil {
		return
	}
	w.probs.reqs[e.RequestID] = &pendingReq{method: e.Request.Method, url: e.Request.URL, typ: e.Type}
}

// responded notes a response with an error status.
func (w *watch) responded(e *network.EventResponseReceived) {
	if w == nil || e.Response == nil || e.Response.Status < 400 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.probs.reqs[e.RequestID]
	if r == nil || w.closed || w.probs.reported[e.RequestID] || noise(r) {
		return
	}
	w.problem(e.RequestID, false, "request "+r.method+" "+w.shortReqURL(r.url)+" → "+strconv.FormatInt(e.Response.Status, 10))
}

// loadFailed notes a request that failed without a response: a refused
// connection, an unknown host, CORS. Requests canceled (a navigation
// away, an aborted fetch) and the allowlist's own refusals (which have
// outcome lines) are not news.
func (w *watch) loadFailed(e *network.EventLoadingFailed) {
	if w == nil || e.Canceled || e.ErrorText == "net::ERR_ABORTED" || e.ErrorText == "net::ERR_BLOCKED_BY_CLIENT" || e.BlockedReason != "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.probs.reqs[e.RequestID]
	if r == nil || w.closed || w.probs.reported[e.RequestID] || noise(r) || w.refused[strings.SplitN(r.url, "#", 2)[0]] {
		return
	}
	why := e.ErrorText
	if c := e.CorsErrorStatus; c != nil && c.CorsError != "" {
		why = "blocked by CORS (" + string(c.CorsError) + ")"
	}
	if why == "" {
		why = "failed"
	}
	w.problem(e.RequestID, false, "request "+r.method+" "+w.shortReqURL(r.url)+" → "+why)
}

// noise is a failed request that says nothing about the action: the
// browser's own look for a site icon, and a CORS preflight (the request
// it was for fails too, and says so).
func noise(r *pendingReq) bool {
	if r.typ == network.ResourceTypePreflight {
		return true
	}
	if r.typ != network.ResourceTypeOther && r.typ != "" {
		return false
	}
	u, err := url.Parse(r.url)
	return err == nil && u.Path == "/favicon.ico"
}

// consoleCalled notes a console.error call.
func (w *watch) consoleCalled(e *runtime.EventConsoleAPICalled) {
	if w == nil || e.Type != runtime.ConsoleAPICalledTypeError {
		return
	}
	parts := make([]string, 0, len(e.Args))
	for _, a := range e.Args {
		parts = append(parts, consoleText(a))
	}
	w.console(strings.Join(parts, " "))
}

// thrown notes an uncaught exception, as the console shows it:
// `Uncaught TypeError: x is undefined`.
func (w *watch) thrown(e *runtime.EventExceptionThrown) {
	if w == nil || e.ExceptionDetails == nil {
		return
	}
	d := e.ExceptionDetails
	text := d.Text
	if d.Exception != nil {
		if msg := consoleText(d.Exception); msg != "" {
			text = strings.TrimSuffix(text, ":") + " " + msg
		}
	}
	w.console(strings.TrimSpace(text))
}

// console notes a console error line. The text is the page's: it is
// quoted on one line, as tree lines quote page strings, so it cannot pass
// for a line of canopy's (docs/tiers.md).
func (w *watch) console(text string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	// An error's description carries its stack, one frame a line after
	// the message: the message says what happened. Other line breaks
	// are the page's and stay, escaped by the quoting.
	if i := strings.Index(text, "\n    at "); i >= 0 {
		text = text[:i]
	}
	w.problem("", true, "console error: "+quoteProblem(text))
}

// problem adds a line; w.mu is held.
func (w *watch) problem(id network.RequestID, console bool, line string) {
	if len(w.probs.list) >= maxProblems {
		return
	}
	if id != "" {
		if w.probs.reported == nil {
			w.probs.reported = map[network.RequestID]bool{}
		}
		w.probs.reported[id] = true
	}
	w.probs.list = append(w.probs.list, session.Problem{Console: console, Line: line})
}

// consoleText renders a console argument or exception as the console
// would: a string as it is, anything else by its description.
func consoleText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if o.Type == runtime.RemoteObjectTypeString {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
	}
	switch {
	case o.Description != "":
		return o.Description
	case len(o.Value) > 0:
		return string(o.Value)
	case o.UnserializableValue != "":
		return string(o.UnserializableValue)
	}
	return string(o.Type)
}

// shortReqURL renders a request's URL: its path on the page's own origin,
// host and path elsewhere; a query is elided, long paths cut.
func (w *watch) shortReqURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return cut(raw, maxProblemText)
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?…"
	}
	if page, err := url.Parse(w.lastURL); err != nil || page.Host != u.Host || page.Scheme != u.Scheme {
		p = u.Host + p
		if u.Host == "" {
			p = trimScheme(raw)
		}
	}
	return cut(p, maxProblemText)
}

// quoteProblem quotes page text for a problem line, cut to a length.
func quoteProblem(s string) string {
	return strconv.Quote(cut(s, maxProblemText))
}

// cut shortens s to n runes, with an ellipsis.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Problems returns the failed requests and console errors the action
// caused (session.ProblemWatcher), once the watch has stopped.
func (w watcher) Problems() []session.Problem {
	w.w.mu.Lock()
	defer w.w.mu.Unlock()
	return append([]session.Problem(nil), w.w.probs.list...)
}
