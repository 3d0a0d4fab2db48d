package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/mimeapps"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/settle"
)

// External schemes (mailto:, tel:, an app's own myapp:) are not loaded by
// the browser: Chromium hands their URLs to the desktop (xdg-open, or the
// desktop portal's OpenURI), for mailto:, news: and snews: at once, for
// every other scheme after asking the user in a dialog of its own. What
// CDP shows of it is a document request (Network.requestWillBeSent, type
// Document) that fails at once with net::ERR_ABORTED, and nothing else:
// no event says whether an app opened, and Fetch never sees the request.
//
// Headless Chromium asks too, in a dialog no one can see, which holds the
// tab: from then on it takes no input at all, reload and navigation
// included, until the tab closes. So headless canopy stops a click on such
// a link (or a form sent to such a URL) in its isolated world before the
// browser sees it, and says so; navigate does not hand such a URL to a
// headless browser. A script that navigates to one still gets the tab held:
// the outcome line says so, input to the tab is refused with a reason, and
// navigate or reload opens the page again in a new tab
// (docs/decisions/2026-11-24-external-schemes.md).

// schemeRule is what Chromium does with an external scheme's URL.
type schemeRule int

const (
	asksFirst  schemeRule = iota // a dialog asks the user first
	handsOver                    // handed to the desktop without asking
	neverHands                   // refused without a word
)

// handedSchemes are the schemes Chromium hands to the desktop without
// asking (ExternalProtocolHandler's allowed list).
var handedSchemes = []string{"mailto", "news", "snews"}

// deniedSchemes are the schemes Chromium never hands to another app
// (ExternalProtocolHandler's denied list, less the ones it loads itself).
var deniedSchemes = []string{"afp", "disk", "disks", "hcp", "ie.http", "ms-help", "nntp", "res", "shell", "vbscript", "vnd.ms.radio"}

// ruleOf says what Chromium does with URLs of an external scheme.
func ruleOf(scheme string) schemeRule {
	switch {
	case contains(handedSchemes, scheme):
		return handsOver
	case contains(deniedSchemes, scheme), len(scheme) == 1: // a Windows drive letter
		return neverHands
	}
	return asksFirst
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// schemeHandler finds the app the desktop opens a scheme's URLs with; a
// variable for the tests.
var schemeHandler = mimeapps.SchemeHandler

// xdgDesktop says whether the desktop's handlers are XDG ones, which
// mimeapps can name.
var xdgDesktop = runtime.GOOS != "darwin" && runtime.GOOS != "windows"

// schemeEnd is how an external URL's hand-over ended.
type schemeEnd int

const (
	schemeLoaded  schemeEnd = iota // the browser was given the URL
	schemeStopped                  // canopy kept it from a headless browser
)

// schemeSetting is what an external URL's outcome depends on besides the
// URL.
type schemeSetting struct {
	headless  bool // the browser has no window, nor dialogs anyone sees
	noDisplay bool // the browser runs with no display: xdg-open opens no app
	end       schemeEnd
}

// schemeLine is the outcome line of an external URL u the page or the
// agent went to.
func schemeLine(u string, s schemeSetting) string {
	scheme := action.Scheme(u)
	what := scheme + ": link"
	shown := cutURL(u)
	app, found := mimeapps.App{}, false
	if xdgDesktop {
		app, found = schemeHandler(scheme)
	}
	opens := ""
	switch {
	case found:
		opens = fmt.Sprintf("%s opens with %s (%s)", shown, app.Name, app.ID)
	case !xdgDesktop:
		opens = shown + " opens with the system's app for it"
	}
	rule := ruleOf(scheme)
	switch {
	case rule == neverHands:
		return fmt.Sprintf("%s not opened: the browser never hands %s: links to other apps", what, scheme)
	case rule == asksFirst && s.headless && s.end == schemeLoaded:
		// Chromium asks whether or not an app handles the scheme.
		return fmt.Sprintf("%s not opened: headless Chromium asks first in a dialog no one can see, which holds the tab (navigate or reload opens the page again in a new tab)", what)
	case xdgDesktop && !found && (rule == handsOver || s.headless):
		return fmt.Sprintf("%s not opened: no app on this desktop handles %s:", what, scheme)
	case xdgDesktop && !found:
		return fmt.Sprintf("%s: the browser asks whether to hand it to the desktop, but no app on this desktop handles %s:", what, scheme)
	case rule == handsOver && s.noDisplay:
		return fmt.Sprintf("%s not opened: the browser handed it to the desktop, which has no display to open an app on; with one, %s", what, opens)
	case rule == handsOver:
		return fmt.Sprintf("%s handed to the desktop: %s", what, opens)
	case s.headless && s.end == schemeStopped:
		return fmt.Sprintf("%s not opened: headless Chromium would ask first, with no one to answer; on the desktop %s", what, opens)
	}
	return fmt.Sprintf("%s: the browser asks whether to hand it to the desktop, where %s", what, opens)
}

// schemePayload starts the binding call of a link canopy stopped; a "!"
// after it marks one --domains refuses.
const schemePayload = "scheme:"

// schemesJS is the link watch (schemes.js), a function of its settings.
//
//go:embed schemes.js
var schemesJS string

// schemeJS is the link watch for this browser: in a headless one, it stops
// the clicks on links and the form submissions that would make Chromium ask
// about an external scheme; under --domains (in any browser), those to an
// external scheme the list refuses. Each is reported through the binding.
// Its listeners run in canopy's isolated world.
func (b *Browser) schemeJS() string {
	loads := action.BrowserSchemes()
	sort.Strings(loads)
	handed := append(append([]string{}, handedSchemes...), deniedSchemes...)
	sort.Strings(handed)
	var allowed any // null: no list judges external schemes
	if d := b.urlPolicy(); d != nil {
		apps := d.AppSchemes()
		sort.Strings(apps)
		allowed = append([]string{}, apps...)
	}
	args, _ := json.Marshal([]any{loads, handed, allowed, b.headless, mutationBinding})
	return "(" + strings.TrimSpace(schemesJS) + ")(..." + string(args) + ")"
}

// displayless says whether a browser launched with extra environment env
// has no display to show an app on: xdg-open opens no app then (it tries
// text-mode web browsers only).
func displayless(env []string) bool {
	get := func(k string) string {
		v := os.Getenv(k)
		for _, kv := range env {
			if name, val, ok := strings.Cut(kv, "="); ok && name == k {
				v = val
			}
		}
		return v
	}
	return xdgDesktop && get("DISPLAY") == "" && get("WAYLAND_DISPLAY") == ""
}

// watchSchemes installs schemeJS in every document of a tab of a headless
// browser, or of any browser that holds to --domains (a desktop browser's
// question is a dialog on the screen, for the agent to answer there).
func (b *Browser) watchSchemes(ctx context.Context, t cdp.Session) error {
	if !b.headless && b.urlPolicy() == nil {
		return nil
	}
	_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: b.schemeJS(), WorldName: canopyWorld, RunImmediately: new(true),
	})
	if err != nil {
		return fmt.Errorf("install the link watch: %w", err)
	}
	return nil
}

// externalURL reports a document request for an external URL u, or (end
// schemeStopped) a link to one that canopy stopped. Its outcome line needs
// the desktop's handlers read from disk, which the event reader must not
// wait for: the action stays busy until the line is in. A desktop
// browser's question, or the handler's window, opens on the desktop after
// the request: the action waits for a window to open, up to windowHold.
func (tw *tabWatch) externalURL(w *watch, u string, end schemeEnd) {
	if refused, ok := strings.CutPrefix(u, "!"); ok && end == schemeStopped {
		w.outcome(refusedSchemeLine(refused, tw.b.urlPolicy().Allows(refused)))
		return
	}
	if err := tw.b.urlPolicy().Allows(u); err != nil && end == schemeLoaded && action.External(u) {
		// A script's navigation (or a window it opened), or a link in a
		// cross-site frame: the link watch sees the links and forms of
		// the tab's own process only.
		w.outcome(fmt.Sprintf("%s: link reached the browser unjudged (a page's script, or a cross-site frame's link, which canopy cannot hold back): %s", action.Scheme(u), denial(err)))
	}
	headless := tw.b.headless
	rule := ruleOf(action.Scheme(u))
	if headless && rule == asksFirst && end == schemeLoaded {
		tw.mu.Lock()
		tw.heldBy = action.Scheme(u)
		tw.mu.Unlock()
	}
	key := "scheme:" + u
	w.send(settle.Event{Kind: settle.Busy, Key: key})
	if !headless && rule != neverHands && end == schemeLoaded {
		w.send(settle.Event{Kind: settle.Busy, Key: key + " window", UntilOpened: true, Hold: windowHold})
	}
	set := schemeSetting{headless: headless, noDisplay: tw.b.noDisplay, end: end}
	go func() {
		w.outcome(schemeLine(u, set))
		w.send(settle.Event{Kind: settle.Idle, Key: key})
	}()
}

// refusedSchemeLine is the outcome line of a link or form to an external
// scheme that canopy stopped because --domains refuses it (err, or nil
// when the list changed its mind: it was stopped all the same).
func refusedSchemeLine(u string, err error) string {
	why := "not allowed by --domains"
	if err != nil {
		why = denial(err)
	}
	return fmt.Sprintf("refused %s: link %s (%s)", action.Scheme(u), cutURL(u), why)
}

// denial is a refusal's text without the ErrDenied at its end.
func denial(err error) string {
	return strings.TrimSuffix(err.Error(), ": "+policy.ErrDenied.Error())
}

// heldErr refuses input to a tab that headless Chromium's hidden question
// about an external scheme holds (it would be lost without a word).
func (tw *tabWatch) heldErr(a action.Action) error {
	if tw == nil {
		return nil
	}
	if spec, _ := action.SpecOf(a.Kind); !spec.Input {
		return nil
	}
	if s := tw.held(); s != "" {
		return fmt.Errorf("headless Chromium holds this tab with its question whether to open a %s: link, which no one can see, and the page takes no input: navigate or reload opens it again in a new tab", s)
	}
	return nil
}

// held returns the external scheme whose hidden question holds the tab,
// or "".
func (tw *tabWatch) held() string {
	if tw == nil {
		return ""
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.heldBy
}

// navigateExternal answers navigate to an external URL in a headless
// browser for a scheme Chromium would ask about (which would hold the tab
// for good): the browser is not given it. ok is false for every other
// navigation.
func (b *Browser) navigateExternal(u string) (line string, ok bool) {
	u = action.NormalizeURL(u)
	if b.urlPolicy().Allows(u) != nil {
		return "", false // Navigate refuses it
	}
	if !b.headless || !action.External(u) || ruleOf(action.Scheme(u)) != asksFirst {
		return "", false
	}
	return schemeLine(u, schemeSetting{headless: true, noDisplay: b.noDisplay, end: schemeStopped}), true
}
