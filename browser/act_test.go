package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/goldentest"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// These tests drive every action through the one executor (session.Run) on
// the real Chromium, read the page's state back over CDP to prove the action
// did what it says, and compare the reply with a golden file under
// testdata/act. Each test has a fresh browser, so refs are deterministic.

// actEnv is a fresh browser on one test page with a session over it.
type actEnv struct {
	t *testing.T
	b *Browser
	s *session.Session
}

// newAct launches a browser, loads path and opens an act-tier session.
func newAct(t *testing.T, path string) *actEnv {
	return newActTier(t, path, action.Act)
}

func newActTier(t *testing.T, path string, tier action.Tier) *actEnv {
	t.Helper()
	b := newBrowser(t)
	load(t, b, path)
	return &actEnv{t: t, b: b, s: newActSession(b, tier)}
}

// newActSession opens a session over b at tier.
func newActSession(b *Browser, tier action.Tier) *session.Session {
	return session.New(b.Source(), policy.New(tier), session.Options{})
}

// run parses steps (canopy do syntax) and runs them: one step as itself,
// several as one batch.
func (e *actEnv) run(steps string) (session.Reply, error) {
	e.t.Helper()
	as, err := action.ParseSteps(steps)
	if err != nil {
		e.t.Fatalf("parse %q: %v", steps, err)
	}
	a := as[0]
	if len(as) > 1 {
		a = action.Action{Kind: action.Batch, Steps: as}
	}
	return e.do(a)
}

// do runs one action value.
func (e *actEnv) do(a action.Action) (session.Reply, error) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return e.s.Run(ctx, a)
}

// must runs steps and fails the test on an error.
func (e *actEnv) must(steps string) session.Reply {
	e.t.Helper()
	r, err := e.run(steps)
	if err != nil {
		e.t.Fatalf("%s: %v", steps, err)
	}
	return r
}

// fails runs steps, wants an error, and returns its text.
func (e *actEnv) fails(steps string) string {
	e.t.Helper()
	r, err := e.run(steps)
	if err == nil {
		e.t.Fatalf("%s: want an error, got reply:\n%s", steps, r.Text)
	}
	return err.Error()
}

// js evaluates JavaScript in the current tab (eval reads the first tab).
func js[T any](t testing.TB, b *Browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.tabCtx(), 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %q: %v", expr, err)
	}
	return v
}

// out is the text of the page's status line #out (widgets.html).
func (e *actEnv) out() string {
	e.t.Helper()
	return js[string](e.t, e.b, `document.getElementById('out').textContent`)
}

// goldenAct compares a reply with testdata/act/NAME.golden, ports replaced.
func goldenAct(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "act", name+".golden")
	got = stable(got)
	goldentest.Check(t, path, got)
}

func wantContains(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s does not contain %q:\n%s", what, s, text)
		}
	}
}

func wantNot(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(text, s) {
			t.Errorf("%s contains %q:\n%s", what, s, text)
		}
	}
}

// TestActClick: clicking opens the dashboard's modal confirm dialog (the
// reply names it, and the page behind it is not reported as removed), and
// clicking its Delete button removes the project.
func TestActClick(t *testing.T) {
	e := newAct(t, "/dashboard.html")
	r := e.must(`click role:listitem text:Borealis >> role:button name:Delete`)
	if !js[bool](t, e.b, `document.getElementById('confirm').open`) {
		t.Fatal("the confirm dialog is not open after clicking Delete")
	}
	wantNot(t, "reply", r.Text, "- ")
	goldenAct(t, "click-open-dialog", r.Text)

	r = e.must(`click role:dialog >> role:button name:Delete`)
	if got := js[string](t, e.b, `document.getElementById('status').textContent`); got != "Deleted Borealis" {
		t.Errorf("status = %q, want Deleted Borealis", got)
	}
	if js[bool](t, e.b, `document.getElementById('confirm').open`) {
		t.Error("the dialog is still open")
	}
	if n := js[int](t, e.b, `document.querySelectorAll('#projects li').length`); n != 2 {
		t.Errorf("%d projects left, want 2", n)
	}
	goldenAct(t, "click-confirm", r.Text)
}

// TestActPointer: double click, hover (the tooltip appears) and a right
// click (the page's context menu handler runs).
func TestActPointer(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`double_click role:button name:"Double click me"`)
	if got := js[string](t, e.b, `document.getElementById('dbl').textContent`); got != "Double clicked" {
		t.Errorf("after double_click the text is %q", got)
	}
	goldenAct(t, "double-click", r.Text)

	r = e.must(`hover role:button name:"Hover me"`)
	if got := js[string](t, e.b, `getComputedStyle(document.getElementById('tip')).display`); got != "inline" {
		t.Errorf("after hover the tooltip's display is %q, want inline", got)
	}
	wantContains(t, "hover reply", r.Text, `+ tooltip "Tip shown"`)
	goldenAct(t, "hover", r.Text)

	r = e.must(`click role:button name:"Right click me" right`)
	if got := e.out(); got != "Context menu" {
		t.Errorf("after a right click #out is %q, want Context menu", got)
	}
	goldenAct(t, "click-right", r.Text)

	// A plain click on the same button is not a right click.
	eval[bool](t, e.b, `document.getElementById('out').textContent = ''; true`)
	e.must(`click role:button name:"Right click me"`)
	if got := e.out(); got != "" {
		t.Errorf("a left click ran the context menu handler: #out = %q", got)
	}
}

// TestActType: plain typing, clear, and submit (Enter submits the form and
// the page navigates).
func TestActType(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`type role:textbox name:Notes "first line"`)
	if got := js[string](t, e.b, `document.getElementById('notes').value`); got != "first line" {
		t.Errorf("notes = %q", got)
	}
	if got := js[string](t, e.b, `document.activeElement.id`); got != "notes" {
		t.Errorf("focus is on #%s, want #notes", got)
	}
	goldenAct(t, "type", r.Text)

	e.must(`type role:textbox name:Notes " more"`)
	if got := js[string](t, e.b, `document.getElementById('notes').value`); got != "first line more" {
		t.Errorf("typing again appends: notes = %q", got)
	}
	r = e.must(`type role:textbox name:Notes "replaced" clear`)
	if got := js[string](t, e.b, `document.getElementById('notes').value`); got != "replaced" {
		t.Errorf("after clear notes = %q, want replaced", got)
	}
	goldenAct(t, "type-clear", r.Text)

	// The contenteditable editor takes text too.
	e.must(`type role:textbox name:Editor "rich"`)
	if got := js[string](t, e.b, `document.querySelector('[contenteditable]').textContent`); got != "rich" {
		t.Errorf("editor = %q", got)
	}

	l := newAct(t, "/app-login.html")
	l.must(`type role:textbox name:Email "a@b.c"`)
	r = l.must(`type role:textbox name:Password "hunter22" submit`)
	if got := js[string](t, l.b, `location.pathname + location.search`); got != "/dashboard.html?email=a%40b.c" {
		t.Errorf("after submit the page is %q", got)
	}
	if !r.Replaced || !strings.HasPrefix(r.Text, "navigated /app-login.html → /dashboard.html?email=a%40b.c\n") {
		t.Errorf("submit reply (replaced=%v) does not start with the navigation:\n%s", r.Replaced, r.Text)
	}
	wantContains(t, "submit reply", r.Text, "Signed in as a@b.c")
	wantNot(t, "submit reply", r.Text, "hunter22")
	goldenAct(t, "type-submit", r.Text)
}

// TestActPress: Enter in the search box, a chord on the page, a bad key.
func TestActPress(t *testing.T) {
	e := newAct(t, "/widgets.html")
	e.must(`type role:searchbox name:Search "cats"`)
	r := e.must(`press role:searchbox name:Search Enter`)
	if got := e.out(); got != "Searched cats" {
		t.Errorf("after Enter #out = %q", got)
	}
	goldenAct(t, "press-enter", r.Text)

	r = e.must(`press ctrl+s`)
	if got := e.out(); got != "Saved with ctrl+s" {
		t.Errorf("after ctrl+s #out = %q", got)
	}
	goldenAct(t, "press-chord", r.Text)

	// Tab moves the focus, shift+Tab moves it back.
	r = e.must(`press Tab`)
	if got := js[string](t, e.b, `document.activeElement.textContent`); got != "At the bottom" {
		t.Errorf("after Tab from the search box the focus is on %q", got)
	}
	wantContains(t, "Tab reply", r.Text, `focus → button "At the bottom" e28`)
	e.must(`press shift+Tab`)
	if got := js[string](t, e.b, `document.activeElement.id`); got != "q" {
		t.Errorf("after shift+Tab the focus is on #%s, want #q", got)
	}

	msg := e.fails(`press ctrl+nosuchkey`)
	wantContains(t, "bad key error", msg, `unknown key "nosuchkey"`, "Enter")
	msg = e.fails(`press hyper+a`)
	wantContains(t, "bad modifier error", msg, `"hyper" is not a modifier`)
	if got := e.out(); got != "Saved with ctrl+s" {
		t.Errorf("a bad key still did something: #out = %q", got)
	}
}

// TestActSelect: a native <select> by label, a missing and a disabled
// option, and an ARIA combobox that opens a listbox.
func TestActSelect(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`select role:combobox name:Region "Asia"`)
	if got := js[string](t, e.b, `document.getElementById('region').value`); got != "Asia" {
		t.Errorf("region = %q", got)
	}
	if got := e.out(); got != "Region Asia" {
		t.Errorf("the change event did not run: #out = %q", got)
	}
	goldenAct(t, "select-native", r.Text)

	msg := e.fails(`select role:combobox name:Region "Africa"`)
	wantContains(t, "missing option error", msg, `no option "Africa"`, `"Europe"`, `"Asia"`, `"Mars"`, `combobox "Region" e2`)
	msg = e.fails(`select role:combobox name:Region "Mars"`)
	wantContains(t, "disabled option error", msg, `"Mars" is disabled`)
	if got := js[string](t, e.b, `document.getElementById('region').value`); got != "Asia" {
		t.Errorf("a failed select changed the region to %q", got)
	}

	r = e.must(`select role:combobox name:Colour "Blue"`)
	if got := js[string](t, e.b, `document.getElementById('colour').textContent`); got != "Blue" {
		t.Errorf("colour = %q, want Blue", got)
	}
	if got := js[string](t, e.b, `document.querySelector('#colours [aria-selected=true]').textContent`); got != "Blue" {
		t.Errorf("selected option = %q", got)
	}
	if !js[bool](t, e.b, `document.getElementById('colours').hidden`) {
		t.Error("the listbox is still open")
	}
	goldenAct(t, "select-aria", r.Text)

	msg = e.fails(`select role:combobox name:Colour "Purple"`)
	wantContains(t, "missing ARIA option error", msg, `no option "Purple"`)
}

// TestActCheck: check, check again (no change), uncheck, and radios.
func TestActCheck(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`check role:checkbox name:Newsletter`)
	if !js[bool](t, e.b, `document.getElementById('news').checked`) {
		t.Error("the checkbox is not checked")
	}
	goldenAct(t, "check", r.Text)

	r = e.must(`check role:checkbox name:Newsletter`)
	if r.Text != "no change\n" {
		t.Errorf("checking a checked box: reply %q, want no change", r.Text)
	}
	if !js[bool](t, e.b, `document.getElementById('news').checked`) {
		t.Error("checking a checked box unchecked it")
	}

	r = e.must(`uncheck role:checkbox name:Newsletter`)
	if js[bool](t, e.b, `document.getElementById('news').checked`) {
		t.Error("the checkbox is still checked")
	}
	goldenAct(t, "uncheck", r.Text)
	if r = e.must(`uncheck role:checkbox name:Newsletter`); r.Text != "no change\n" {
		t.Errorf("unchecking an unchecked box: reply %q", r.Text)
	}

	e.must(`check role:radio name:Large`)
	if got := js[string](t, e.b, `document.querySelector('input[name=size]:checked').value`); got != "l" {
		t.Errorf("checked radio = %q, want l", got)
	}
	msg := e.fails(`uncheck role:radio name:Large`)
	wantContains(t, "uncheck radio error", msg, "checking another one")
}

// TestActSetValue sets the range slider.
func TestActSetValue(t *testing.T) {
	e := newAct(t, "/widgets.html")
	r := e.must(`set_value role:slider name:Volume "7"`)
	if got := js[string](t, e.b, `document.getElementById('volume').value`); got != "7" {
		t.Errorf("volume = %q", got)
	}
	if got := e.out(); got != "Volume 7" {
		t.Errorf("#out = %q", got)
	}
	goldenAct(t, "set-value", r.Text)

	msg := e.fails(`set_value role:slider name:Volume "loud"`)
	wantContains(t, "bad value error", msg, `did not take the value "loud"`)
}

// TestActScroll: by an amount, and a target into view.
func TestActScroll(t *testing.T) {
	e := newAct(t, "/widgets.html")
	// The page's height depends on the machine's fonts: the reply must say
	// the page's own figure, and the golden holds it as N.
	height := fmt.Sprintf(" of %.0f px", js[float64](t, e.b, `document.documentElement.scrollHeight - innerHeight`))
	r := e.must(`scroll down 500`)
	if y := js[float64](t, e.b, `scrollY`); y < 499 || y > 501 {
		t.Errorf("scrollY = %v after scrolling down 500", y)
	}
	if !strings.HasPrefix(r.Text, "scrolled down from 0"+height+"\n") {
		t.Errorf("scroll reply does not start with %q:\n%s", "scrolled down from 0"+height, r.Text)
	}
	goldenAct(t, "scroll-down", strings.Replace(r.Text, height, " of N px", 1))

	e.must(`scroll up 200`)
	if y := js[float64](t, e.b, `scrollY`); y < 299 || y > 301 {
		t.Errorf("scrollY = %v after scrolling up 200", y)
	}

	inView := `(() => { const r = document.getElementById('bottom').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`
	if js[bool](t, e.b, inView) {
		t.Fatal("the bottom button is in view before scrolling to it")
	}
	e.must(`scroll role:button name:"At the bottom"`)
	if !js[bool](t, e.b, inView) {
		t.Errorf("the bottom button is not in view after scrolling to it (scrollY %v)", js[float64](t, e.b, `scrollY`))
	}
	// Clicking a node far below scrolls to it by itself.
	e.must(`scroll up 5000`)
	e.must(`click role:button name:"At the bottom"`)
	if got := e.out(); got != "Bottom reached" {
		t.Errorf("clicking the bottom button: #out = %q", got)
	}
}

// TestActDrag drags Card A onto the Done column.
func TestActDrag(t *testing.T) {
	e := newAct(t, "/widgets.html")
	// The draggable <li> has no ref of its own (a dragstart listener is not
	// click evidence), so text:"Card A" resolves to its list, whose centre
	// is the card.
	r := e.must(`drag text:"Card A" 'role:region name:"Done column"'`)
	if got := e.out(); got != "Dropped" {
		t.Errorf("#out = %q, want Dropped", got)
	}
	if got := js[string](t, e.b, `document.getElementById('card').parentElement.id`); got != "drop" {
		t.Errorf("the card is in #%s, want #drop", got)
	}
	goldenAct(t, "drag", r.Text)

	msg := e.fails(`drag role:button name:"Hover me" 'role:region name:"No such column"'`)
	wantContains(t, "bad drop target error", msg, "drop target", "no element matches")
}

// TestActUpload puts a file into the file input; a missing file is named.
// At act, files come only from the session's downloads folder (or the
// folder the policy names), decided on the path alone before anything is
// looked at; at sensitive, from anywhere.
func TestActUpload(t *testing.T) {
	e := newAct(t, "/widgets.html")
	dir := e.b.DownloadDir()
	path := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := e.do(action.Action{Kind: action.Upload, Target: `role:button name:Attachment`, Paths: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	if got := js[string](t, e.b, `document.getElementById('files').textContent`); got != "notes.txt" {
		t.Errorf("files shown: %q, want notes.txt", got)
	}
	if got := js[int](t, e.b, `document.getElementById('file').files[0].size`); got != 5 {
		t.Errorf("uploaded file size %d, want 5", got)
	}
	goldenAct(t, "upload", r.Text)

	missing := filepath.Join(dir, "nope.txt")
	_, err = e.do(action.Action{Kind: action.Upload, Target: `role:button name:Attachment`, Paths: []string{missing}})
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("upload of a missing file: err = %v, want it to name %s", err, missing)
	}
	msg := e.fails(`upload role:button name:"Hover me" "` + path + `"`)
	wantContains(t, "upload into a button error", msg, "not a file input")

	// Outside the folder: the same refusal whether the file exists or not,
	// and whatever the target is.
	outside := filepath.Join(t.TempDir(), "elsewhere.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{outside, outside + ".missing", "/etc/shadow", dir + "/../" + filepath.Base(outside), "relative.txt"} {
		for _, target := range []string{`role:button name:Attachment`, `role:button name:"Hover me"`} {
			_, err := e.do(action.Action{Kind: action.Upload, Target: target, Paths: []string{path, p}})
			if err == nil || !strings.Contains(err.Error(), "upload of "+p+" needs the sensitive tier: at act, files come only from "+dir) {
				t.Errorf("upload of %s into %s at act: %v, want a refusal naming the folder", p, target, err)
			}
		}
	}
	// A link in the folder that leads out of it.
	link := filepath.Join(dir, "innocent.txt")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if _, err := e.do(action.Action{Kind: action.Upload, Target: `role:button name:Attachment`, Paths: []string{link}}); err == nil || !strings.Contains(err.Error(), "leads out of "+dir) {
		t.Errorf("upload of a link out of the folder at act: %v, want a refusal", err)
	}
	if got := js[int](t, e.b, `document.getElementById('file').files.length`); got != 1 {
		t.Errorf("after the refusals the input holds %d files, want the 1 from before", got)
	}

	// The policy names another folder: it replaces the downloads folder.
	other := newActTier(t, "/widgets.html", action.Act)
	other.s = session.New(other.b.Source(), policy.New(action.Act, policy.Files(filepath.Dir(outside))), session.Options{})
	other.must(`upload role:button name:Attachment "` + outside + `"`)
	if _, err := other.do(action.Action{Kind: action.Upload, Target: `role:button name:Attachment`, Paths: []string{filepath.Join(other.b.DownloadDir(), "x.txt")}}); err == nil {
		t.Error("with a files folder named, an upload from the downloads folder is allowed")
	}

	// At sensitive, from anywhere.
	wide := newActTier(t, "/widgets.html", action.Sensitive)
	wide.must(`upload role:button name:Attachment "` + outside + `"`)
	if got := js[int](t, wide.b, `document.getElementById('file').files[0].size`); got != 6 {
		t.Errorf("uploaded file size %d at sensitive, want 6", got)
	}
}
