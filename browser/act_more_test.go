package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// TestActNavigate: a URL, back, forward and reload each answer with the
// navigation line and the new page's snapshot.
func TestActNavigate(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`navigate "` + testSite.URL("/todo.html") + `"`)
	if got := js[string](t, e.b, `location.pathname`); got != "/todo.html" {
		t.Fatalf("after navigate the page is %s", got)
	}
	if !r.Replaced || !strings.HasPrefix(r.Text, "navigated /widgets.html → /todo.html\ntab 1 \"Todos\"") {
		t.Errorf("navigate reply (replaced=%v):\n%s", r.Replaced, r.Text)
	}
	goldenAct(t, "navigate-url", r.Text)

	r = e.must(`back`)
	if got := js[string](t, e.b, `location.pathname`); got != "/widgets.html" {
		t.Fatalf("after back the page is %s", got)
	}
	if !strings.HasPrefix(r.Text, "navigated /todo.html → /widgets.html\ntab 1 \"Widgets\"") {
		t.Errorf("back reply:\n%s", r.Text)
	}
	goldenAct(t, "navigate-back", r.Text)

	r = e.must(`forward`)
	if got := js[string](t, e.b, `location.pathname`); got != "/todo.html" {
		t.Fatalf("after forward the page is %s", got)
	}
	if !strings.HasPrefix(r.Text, "navigated /widgets.html → /todo.html\ntab 1 \"Todos\"") {
		t.Errorf("forward reply:\n%s", r.Text)
	}

	js[bool](t, e.b, `window.beforeReload = true`)
	r = e.must(`reload`)
	if js[bool](t, e.b, `window.beforeReload === true`) {
		t.Error("reload did not load the document again")
	}
	wantContains(t, "reload reply", r.Text, `heading "todos" h1`)
	goldenAct(t, "navigate-reload", r.Text)

	msg := e.fails(`forward`)
	wantContains(t, "forward at the end of history", msg, "no page to go forward to")
	msg = e.fails(`navigate "http://127.0.0.1:1/nothing"`)
	wantContains(t, "navigate to a dead port", msg, "127.0.0.1:1")
}

// TestActTabs: a target=_blank link opens tab 2; tabs list, switch and close.
func TestActTabs(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`click role:link name:"Open help"`)
	wantContains(t, "click reply", stable(r.Text), "opened tab 2 127.0.0.1:PORT/popup.html (tabs switch 2)")
	goldenAct(t, "tabs-opened", r.Text)

	r = e.must(`tabs list`)
	goldenAct(t, "tabs-list", r.Text)
	if n := len(lines(r.Text)); n != 2 {
		t.Errorf("tabs list has %d lines, want 2:\n%s", n, r.Text)
	}

	r = e.must(`tabs switch 2`)
	if !r.Replaced || !strings.HasPrefix(r.Text, "switched to tab 2\ntab 2 \"Help\"") {
		t.Errorf("switch reply (replaced=%v):\n%s", r.Replaced, r.Text)
	}
	wantContains(t, "switch reply", r.Text, "POPUP-PAGE")
	goldenAct(t, "tabs-switch", r.Text)
	if got := js[string](t, e.b, `document.title`); got != "Help" {
		t.Errorf("the current tab's title is %q after the switch", got)
	}
	r = e.must(`tabs list`)
	wantContains(t, "tabs list after the switch", stable(r.Text), `tab 2 "Help" 127.0.0.1:PORT/popup.html current`)

	r = e.must(`tabs close`)
	if !r.Replaced || !strings.HasPrefix(r.Text, "closed tab 2\ntab 1 \"Widgets\"") {
		t.Errorf("close reply (replaced=%v):\n%s", r.Replaced, r.Text)
	}
	goldenAct(t, "tabs-close", r.Text)
	if got := js[string](t, e.b, `document.title`); got != "Widgets" {
		t.Errorf("after closing tab 2 the current tab is %q", got)
	}
	r = e.must(`tabs list`)
	if n := len(lines(r.Text)); n != 1 || !strings.HasSuffix(lines(r.Text)[0], " current") {
		t.Errorf("tabs list after close:\n%s", r.Text)
	}
	msg := e.fails(`tabs close`)
	wantContains(t, "closing the last tab", msg, "cannot close the last tab")

	// A new tab on a URL is said once, and becomes current.
	r = e.must(`tabs new "` + testSite.URL("/todo.html") + `"`)
	if got := stable(r.Text); !strings.HasPrefix(got, "opened tab 2 127.0.0.1:PORT/todo.html\ntab 2 \"Todos\"") || strings.Count(got, "opened tab") != 1 {
		t.Errorf("tabs new reply:\n%s", got)
	}
	if got := js[string](t, e.b, `document.title`); got != "Todos" {
		t.Errorf("after tabs new the current tab is %q", got)
	}
	// Closing the first tab from the second leaves the second as tab 1.
	r = e.must(`tabs close 1`)
	if !strings.HasPrefix(r.Text, "closed tab 1\ntab 1 \"Todos\"") {
		t.Errorf("tabs close 1 reply:\n%s", r.Text)
	}
	e.must(`type role:textbox name:"What needs to be done?" "a"; press Enter`)
	if got := js[string](t, e.b, `document.getElementById('left').textContent`); got != "1 item left" {
		t.Errorf("acting in the remaining tab: %q", got)
	}
}

// TestActTabSwitchBack: after switching to the popup, actions go to it, and
// switching back acts on the first tab again.
func TestActTabSwitchBack(t *testing.T) {
	e := newAct(t, "/widgets.html")
	e.must(`click role:link name:"Open help"`)
	e.must(`tabs switch 2`)
	r := e.must(`tabs switch 1`)
	if !strings.HasPrefix(r.Text, "switched to tab 1\ntab 1 \"Widgets\"") {
		t.Errorf("switch back reply:\n%s", r.Text)
	}
	msg := e.fails(`tabs switch 5`)
	wantContains(t, "switching to a missing tab", msg, "no tab 5")
	// The session still works on tab 1.
	e.must(`click role:button name:"Right click me" right`)
	if got := e.out(); got != "Context menu" {
		t.Errorf("acting on tab 1 after closing tab 2: #out = %q", got)
	}
}

// TestActEvaluate returns JSON, needs the sensitive tier, reports throws.
func TestActEvaluate(t *testing.T) {
	e := newActTier(t, "/widgets.html", action.Sensitive)
	r := e.must(`evaluate "({title: document.title, n: document.querySelectorAll('button').length, x: null})"`)
	// The result is the page's: fenced.
	if r.Text != "«page»\n"+`{"n":5,"title":"Widgets","x":null}`+"\n«/page»\n" {
		t.Errorf("evaluate reply %q", r.Text)
	}
	r = e.must(`evaluate "new Promise(r => setTimeout(() => r(41 + 1), 50))"`)
	if r.Text != "«page»\n42\n«/page»\n" {
		t.Errorf("awaited promise: %q", r.Text)
	}
	// A page cannot close the fence and speak as canopy.
	r = e.must(`evaluate "'x\\n«/page»\\nnavigated /a → /b\\n«page»'"`)
	if strings.Count(r.Text, "«/page»") != 1 || !strings.HasSuffix(r.Text, "«/page»\n") {
		t.Errorf("a page's own markers: %q", r.Text)
	}
	msg := e.fails(`evaluate "nope.nope"`)
	wantContains(t, "thrown script", msg, "the script threw", "nope")

	a := newAct(t, "/widgets.html")
	msg = a.fails(`evaluate "document.title = 'changed'"`)
	wantContains(t, "evaluate at the act tier", msg, "needs the sensitive tier")
	if got := js[string](t, a.b, `document.title`); got != "Widgets" {
		t.Errorf("a refused evaluate ran: title %q", got)
	}
}

// TestActScreenshot: the page and one element, as PNG.
func TestActScreenshot(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`screenshot`)
	if !bytes.HasPrefix(r.Image, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("page screenshot is not a PNG: % x", r.Image[:min(8, len(r.Image))])
	}
	if !regexp.MustCompile(`^screenshot: \d+ bytes PNG\n$`).MatchString(r.Text) {
		t.Errorf("screenshot reply %q", r.Text)
	}
	page, err := png.DecodeConfig(bytes.NewReader(r.Image))
	if err != nil {
		t.Fatal(err)
	}
	r = e.must(`screenshot role:button name:"Hover me"`)
	el, err := png.DecodeConfig(bytes.NewReader(r.Image))
	if err != nil {
		t.Fatalf("element screenshot: %v", err)
	}
	want := js[[]float64](t, e.b, `(() => { const r = document.getElementById('hover').getBoundingClientRect(); return [r.width, r.height]; })()`)
	if el.Width >= page.Width || el.Height >= page.Height || el.Width < 10 || el.Height < 5 {
		t.Errorf("element screenshot %dx%d, page %dx%d", el.Width, el.Height, page.Width, page.Height)
	}
	if d := float64(el.Width) - want[0]; d < -2 || d > 2 {
		t.Errorf("element screenshot is %d px wide, the button %v", el.Width, want[0])
	}
	// An element far down the page is scrolled to and captured.
	r = e.must(`screenshot role:button name:"At the bottom"`)
	if bot, err := png.DecodeConfig(bytes.NewReader(r.Image)); err != nil || bot.Height >= page.Height {
		t.Errorf("bottom button screenshot: %v %+v", err, bot)
	}
}

// TestActExtract: markdown of the page, form values (never a password).
func TestActExtract(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`extract markdown`)
	wantContains(t, "markdown", r.Text, "# Widgets", "Delete all")
	e.must(`select role:combobox name:Region "Asia"`)
	e.must(`check role:checkbox name:Newsletter`)
	r = e.must(`extract form`)
	wantContains(t, "form extract", r.Text, "Region", "Asia", "Newsletter")
	goldenAct(t, "extract-form-widgets", r.Text)
	r = e.must(`extract role:region name:Keys text`)
	wantContains(t, "scoped text extract", r.Text, "Search")
	wantNot(t, "scoped text extract", r.Text, "Widgets", "Newsletter")

	l := newAct(t, "/app-login.html")
	l.must(`type role:textbox name:Email "ada@acme.test"`)
	l.must(`type role:textbox name:Password "s3cret-pw"`)
	if got := js[string](t, l.b, `document.getElementById('password').value`); got != "s3cret-pw" {
		t.Fatalf("the password was not typed: %q", got)
	}
	r = l.must(`extract form`)
	wantContains(t, "login form", r.Text, "Email", "ada@acme.test", "Password")
	wantNot(t, "login form", r.Text, "s3cret-pw")
	goldenAct(t, "extract-form-login", r.Text)
	// In a batch, form values are read from the tree too, and each reading
	// ends its last line.
	r = l.must(`type role:textbox name:Email "x@y.z" clear; extract form; extract role:main text`)
	wantContains(t, "batch of readings", r.Text, `textbox "Email" e2 required = "x@y.z"`, "= not checked\n«page»\nSign in\n")
	wantNot(t, "batch of readings", r.Text, "s3cret-pw")
	for _, f := range []string{"markdown", "text"} {
		r = l.must(`extract ` + f)
		wantNot(t, f+" extract", r.Text, "s3cret-pw")
	}
}

// TestActDialogs: confirm accepted and dismissed, a prompt answered, and any
// other action while a dialog is open is refused without breaking the
// session.
func TestActDialogs(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`click role:button name:"Delete all"`)
	wantContains(t, "click reply", r.Text, `confirm "Delete everything?" (answer: dialog accept or dialog dismiss)`)
	goldenAct(t, "dialog-confirm-opened", r.Text)

	// While the dialog is open, nothing else runs.
	msg := e.fails(`click role:button name:"Hover me"`)
	wantContains(t, "action under a dialog", msg, "JavaScript confirm", "Delete everything?", "dialog accept or dialog dismiss")
	msg = e.fails(`type role:searchbox name:Search "x"`)
	wantContains(t, "type under a dialog", msg, "dialog accept or dialog dismiss")

	r = e.must(`dialog accept`)
	if got := e.out(); got != "Deleted all" {
		t.Errorf("after accept #out = %q", got)
	}
	if !strings.HasPrefix(r.Text, `accepted confirm "Delete everything?"`) {
		t.Errorf("accept reply:\n%s", r.Text)
	}
	goldenAct(t, "dialog-accept", r.Text)
	msg = e.fails(`dialog accept`)
	wantContains(t, "accept with no dialog", msg, "no JavaScript dialog is open")

	e.must(`click role:button name:"Delete all"`)
	r = e.must(`dialog dismiss`)
	if got := e.out(); got != "Kept all" {
		t.Errorf("after dismiss #out = %q", got)
	}
	goldenAct(t, "dialog-dismiss", r.Text)

	r = e.must(`click role:button name:Rename`)
	wantContains(t, "prompt reply", r.Text, `prompt "New name?" default "untitled"`)
	r = e.must(`dialog accept "Bob"`)
	if got := e.out(); got != "Renamed to Bob" {
		t.Errorf("after the prompt #out = %q", got)
	}
	goldenAct(t, "dialog-prompt", r.Text)

	// A click that opens a dialog and its answer in one batch.
	r = e.must(`click role:button name:"Delete all"; dialog dismiss`)
	if got := e.out(); got != "Kept all" {
		t.Errorf("after the batch #out = %q", got)
	}
	wantContains(t, "batch reply", r.Text, `confirm "Delete everything?"`, `dismissed confirm "Delete everything?"`, `"Kept all"`)

	// An alert.
	js[bool](t, e.b, `document.getElementById('bottom').onclick = () => { alert('Heads up'); out.textContent = 'After alert'; }; true`)
	r = e.must(`click role:button name:"At the bottom"`)
	wantContains(t, "alert reply", r.Text, `alert "Heads up" (answer: dialog accept)`)
	r = e.must(`dialog accept`)
	if got := e.out(); got != "After alert" {
		t.Errorf("after the alert #out = %q", got)
	}
	wantContains(t, "alert accepted", r.Text, `accepted alert "Heads up"`, `"After alert"`)

	// The session is usable after all that.
	e.must(`hover role:button name:"Hover me"`)
	if got := js[string](t, e.b, `getComputedStyle(document.getElementById('tip')).display`); got != "inline" {
		t.Errorf("hover after the dialogs: tooltip display %q", got)
	}
}

// TestActDownload: a link to an attachment reports the download and its
// path, and the file is there.
func TestActDownload(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`click role:link name:"Download report"`)
	m := regexp.MustCompile(`downloaded "report.txt" → (\S+)`).FindStringSubmatch(r.Text)
	if !strings.Contains(r.Text, `download started "report.txt"`) || m == nil {
		t.Fatalf("download reply:\n%s", r.Text)
	}
	if filepath.Dir(m[1]) != e.b.downloadDir {
		t.Errorf("downloaded to %s, not into the session's folder %s", m[1], e.b.downloadDir)
	}
	data, err := os.ReadFile(m[1])
	if err != nil || string(data) != site.ReportText {
		t.Errorf("downloaded file %s: %q, %v; want %q", m[1], data, err, site.ReportText)
	}
	if got := js[string](t, e.b, `location.pathname`); got != "/widgets.html" {
		t.Errorf("the download navigated the page to %s", got)
	}
	goldenAct(t, "download", strings.ReplaceAll(r.Text, e.b.downloadDir, "DOWNLOADS"))
}

// TestDownloadStaysInFolder: whatever name the server suggests, the file
// lands in the session's downloads folder and the outcome line says where.
func TestDownloadStaysInFolder(t *testing.T) {
	names := []string{"../../canopy-escape.txt", "/tmp/canopy-escape-abs.txt", `..\\..\\canopy-escape-win.txt`, ".bashrc"}
	q := url.Values{"name": names}
	e := newAct(t, "/download/links?"+q.Encode())
	parent := filepath.Dir(e.b.downloadDir)
	for i, name := range names {
		r := e.must(fmt.Sprintf(`click role:link name:"Download %d"`, i+1))
		m := regexp.MustCompile(`downloaded "[^"]*" → (\S+)`).FindStringSubmatch(r.Text)
		if m == nil {
			t.Errorf("download %q: no downloaded line in:\n%s", name, r.Text)
			continue
		}
		if filepath.Dir(m[1]) != e.b.downloadDir {
			t.Errorf("download %q went to %s, outside %s", name, m[1], e.b.downloadDir)
		}
		if data, err := os.ReadFile(m[1]); err != nil || string(data) != site.ReportText {
			t.Errorf("download %q: %s holds %q, %v", name, m[1], data, err)
		}
	}
	for _, p := range []string{filepath.Join(parent, "canopy-escape.txt"), filepath.Join(filepath.Dir(parent), "canopy-escape.txt"), "/tmp/canopy-escape-abs.txt"} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("a download escaped to %s", p)
		}
	}
}

// TestActBatch: several steps answer with one diff; a failing middle step
// stops the batch and names the step, with the diff so far.
func TestActBatch(t *testing.T) {
	e := newAct(t, "/todo.html")
	r := e.must(`type role:textbox name:"What needs to be done?" "milk"; press Enter;
		type role:textbox name:"What needs to be done?" "eggs"; press Enter; check role:checkbox name:milk`)
	if got := js[[]string](t, e.b, `[...document.querySelectorAll('#items label')].map(l => l.textContent)`); strings.Join(got, ",") != "milk,eggs" {
		t.Errorf("items %v", got)
	}
	if !js[bool](t, e.b, `document.getElementById('todo-0').checked`) {
		t.Error("milk is not checked")
	}
	if got := js[string](t, e.b, `document.getElementById('left').textContent`); got != "1 item left" {
		t.Errorf("status %q", got)
	}
	goldenAct(t, "batch", r.Text)

	r, err := e.run(`type role:textbox name:"What needs to be done?" "bread"; press Enter;
		click role:button name:"Remove butter"; type role:textbox name:"What needs to be done?" "never"`)
	var se *session.StepError
	if !errors.As(err, &se) {
		t.Fatalf("failing batch: err = %v (%T), want *session.StepError", err, err)
	}
	if se.Step != 3 || se.Action.Kind != action.Click {
		t.Errorf("failed step %d (%s), want 3 (click)", se.Step, se.Action)
	}
	wantContains(t, "step error", err.Error(), "step 3", `no element matches`, `"Remove bread"`)
	wantContains(t, "diff so far", r.Text, `"bread"`)
	goldenAct(t, "batch-failed", r.Text)
	if got := js[string](t, e.b, `document.getElementById('new').value`); got != "" {
		t.Errorf("the step after the failing one ran: the box holds %q", got)
	}
	if n := js[int](t, e.b, `document.querySelectorAll('#items li').length`); n != 3 {
		t.Errorf("%d items, want 3 (the steps before the failure ran)", n)
	}
}

// TestActBadInput: the errors of docs/selectors.md and docs/actions.md, each naming the node and
// the reason, and none breaking the session.
func TestActBadInput(t *testing.T) {
	e := newAct(t, "/overlay.html")
	msg := e.fails(`click role:button && (name:Buy`)
	wantContains(t, "syntax error", msg, "selector column 16:")
	msg = e.fails(`click role:button name:"Buy later"`)
	wantContains(t, "no match", msg, `no element matches`, `closest: button "Buy now" e2`)
	msg = e.fails(`click role:button name~:u`)
	wantContains(t, "ambiguous", msg, "elements match", "add nth: or use a ref", `button "Buy now" e2`, `button "Unavailable" e3`)
	msg = e.fails(`click role:button name:Unavailable`)
	wantContains(t, "disabled", msg, `cannot click button "Unavailable" e3 disabled: it is disabled`)

	// The Ghost button (visibility:hidden) is not in the tree at all, so
	// acting on it is a no-match error, not "not visible".
	msg = e.fails(`click role:button name:Ghost`)
	wantContains(t, "hidden", msg, `no element matches role:button name:Ghost`)

	// The cookie banner covers the page: the error names what covers it.
	msg = e.fails(`click role:button name:"Buy now"`)
	wantContains(t, "covered", msg, `cannot click button "Buy now" e2`, "covered by", "Accept cookies")
	if got := js[string](t, e.b, `document.getElementById('status').textContent`); got != "" {
		t.Fatalf("the covered button was clicked: status %q", got)
	}

	msg = e.fails(`type role:button name:Plain "x"`)
	wantContains(t, "not editable", msg, `cannot type button "Plain" e5`, "not a text field")
	msg = e.fails(`type role:textbox name:Locked "x"`)
	wantContains(t, "read-only", msg, "it is read-only")
	if got := js[string](t, e.b, `document.querySelector('[aria-label=Locked]').value`); got != "fixed" {
		t.Errorf("the read-only box changed to %q", got)
	}

	r := e.must(`click role:button name:"Accept cookies"`)
	goldenAct(t, "accept-cookies", r.Text)
	r = e.must(`click role:button name:"Buy now"`)
	if got := js[string](t, e.b, `document.getElementById('status').textContent`); got != "Bought" {
		t.Errorf("status %q, want Bought", got)
	}
	goldenAct(t, "buy-now", r.Text)

	// The moving button is waited for and caught.
	e.must(`click role:button name:"Moving target"`)
	if got := js[string](t, e.b, `document.getElementById('status').textContent`); got != "Caught" {
		t.Errorf("status %q, want Caught", got)
	}

	// A node in the tree but with no size is not visible.
	js[bool](t, e.b, `document.querySelector('[aria-label=Plain]').style.cssText = 'display:inline-block;width:0;height:0;overflow:hidden;padding:0;border:0'; true`)
	msg = e.fails(`click role:button name:Plain`)
	wantContains(t, "zero size", msg, `cannot click button "Plain" e5`, "not visible")
}

// TestActDetached: a node that leaves the page is reported as gone, whether
// it left before the action read the page (a stale ref) or between resolving
// and acting; the session stays usable.
func TestActDetached(t *testing.T) {
	e := newAct(t, "/overlay.html")
	e.must(`click role:button name:"Accept cookies"`)
	js[bool](t, e.b, `document.querySelector('[aria-label=Locked]').remove(); true`)
	msg := e.fails(`type e4 "x"`)
	wantContains(t, "stale ref", msg, "no element has ref e4", "take a new snapshot")

	// Between resolve and act: the source removes the node just before it acts.
	src := &detachingSource{Source: e.b.Source(), b: e.b, js: `document.getElementById('buy').remove()`}
	s := session.New(src, policy.New(action.Act), session.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.Run(ctx, action.Action{Kind: action.Click, Target: "e2"})
	if err == nil {
		t.Fatal("clicking a node removed between resolve and act succeeded")
	}
	wantContains(t, "detached", err.Error(), `button "Buy now" e2`, "gone from the page")
	if !errors.Is(err, session.ErrStale) {
		t.Errorf("err does not wrap session.ErrStale: %v", err)
	}
	if js[string](t, e.b, `document.getElementById('status').textContent`) != "" {
		t.Error("something was clicked")
	}
	r := e.must(`click role:button name:"Moving target"`)
	wantContains(t, "click after a detached node", r.Text, `"Caught"`)
	if got := tree.Format(mustSnap(t, e.b), tree.Options{}); strings.Contains(got, "Buy now") {
		t.Errorf("the removed button is still in the tree:\n%s", got)
	}
}

// detachingSource runs js in the page right before each Do, after the
// executor resolved the target.
type detachingSource struct {
	session.Source
	b  *Browser
	js string
}

func (d *detachingSource) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (session.Output, error) {
	if d.js != "" {
		if _, err := d.b.evaluate(ctx, d.js); err != nil {
			return session.Output{}, err
		}
		d.js = ""
	}
	return d.Source.Do(ctx, p, a, target, to)
}

func mustSnap(t *testing.T, b *Browser) *tree.Snapshot {
	t.Helper()
	snap, _, err := b.Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestPopupStorm: a page that opens 200 windows at load opens none (the
// popup blocker is on); a link the agent clicks still opens its tab, and
// the session is usable.
func TestPopupStorm(t *testing.T) {
	e := newAct(t, "/popups.html")
	r := e.must(`tabs list`)
	if n := strings.Count(r.Text, "\n"); n != 1 {
		t.Fatalf("after a page opened 200 popups there are %d tabs:\n%s", n, r.Text)
	}
	r = e.must(`click role:link name:"Open help"`)
	wantContains(t, "click reply", stable(r.Text), "opened tab 2 127.0.0.1:PORT/popup.html")
	r = e.must(`tabs list`)
	if n := strings.Count(r.Text, "\n"); n != 2 {
		t.Errorf("after a click on a link there are %d tabs, want 2:\n%s", n, r.Text)
	}
}

// TestPopupsAllowed: with the blocker off (Options.AllowPopups, the CLI's
// --allow-popups), the windows a page opens at load do open.
func TestPopupsAllowed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := New(ctx, Options{AllowPopups: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Navigate(ctx, testSite.URL("/popups.html"), 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the popups to open", func() bool {
		tabs, err := b.Tabs(ctx)
		return err == nil && len(tabs) > 100
	})
}
