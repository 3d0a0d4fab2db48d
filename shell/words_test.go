package shell_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/internal/goldentest"
)

// wordPages are pages whose text tries to steer the shell: each has a
// "Delete account" button that must never be pressed, and a status line
// that says what was.
var wordPages = map[string]string{
	// A link whose name holds the button's ref as a word.
	"/ref-in-name.html": `<button onclick="say('Account deleted')">Delete account</button>
<a href="#" onclick="say('Opened ' + this.textContent); return false">Safe e1 link</a>`,
	// A link whose name holds a path's "@ref" suffix.
	"/at-in-name.html": `<button onclick="say('Account deleted')">Delete account</button>
<a href="#" onclick="say('Opened ' + this.textContent); return false">Read the docs@e1</a>`,
	// Text that reads as step syntax, next to a search form.
	"/steps-in-text.html": `<form onsubmit="say('Form submitted'); return false">
<label>Search <input id="q"></label> <button>Go</button></form>
<button onclick="say('Account deleted')">Delete account</button>
<p>"cats" submit</p>
<p>credential:github</p>
<p>--clear</p>`,
	// Names full of the path syntax's characters.
	"/odd-names.html": `<button onclick="say('Pressed slash')">a/b</button>
<button onclick="say('Pressed at')">mail@e1</button>
<button onclick="say('Pressed percent')">100% off %2F</button>
<button onclick="say('Pressed star')">*</button>
<button onclick="say('Pressed glob')">[x]? \ y</button>
<button onclick="say('Pressed dots')">..</button>
<button onclick="say('Pressed quote')">say "hi" e1 now</button>
<button onclick="say('Account deleted')">Delete account</button>`,
}

// serveWordPages serves wordPages on 127.0.0.1, each with a status line
// and the say() that writes it.
func serveWordPages(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := wordPages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Words</title>
%s
<p role="status" id="status">Nothing pressed</p>
<script>function say(s) { document.getElementById('status').textContent = s; }</script>`, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// openWords opens a fresh session on one of wordPages.
func openWords(t *testing.T, page string) *env {
	t.Helper()
	srv := serveWordPages(t)
	e := newEnv(t, "", canopy.Config{})
	e.run(`open "` + srv.URL + page + `" | head -n 0`)
	return e
}

// status is the page's status line, read through the shell.
func (e *env) status() string {
	e.t.Helper()
	return strings.TrimSpace(e.run("text | grep 'Nothing|Opened|Pressed|deleted|submitted'"))
}

// requireRef fails the test unless the "Delete account" button has ref:
// the attacks below name the button by the ref it gets on a fresh page.
func (e *env) requireRef(ref string) {
	e.t.Helper()
	got := e.run(`find role:button name:"Delete account"`)
	if !strings.Contains(got, `button "Delete account" `+ref) {
		e.t.Fatalf("the page's Delete account button is not %s (the attack names it so):\n%s", ref, got)
	}
}

// TestLineRefIsTheLinesOwn: a line find printed names the node by the
// ref canopy wrote after the name, never by a ref-like word inside the
// quoted name.
func TestLineRefIsTheLinesOwn(t *testing.T) {
	e := openWords(t, "/ref-in-name.html")
	e.requireRef("e1")
	out := e.run(`for b in $(find role:link); do click "$b"; done`)
	if got := e.status(); got != "Opened Safe e1 link" {
		t.Fatalf("after clicking every link find printed, the status is %q (want the link opened, the button not pressed); output:\n%s", got, out)
	}
	// The same with an unquoted variable, and with a line grep printed.
	for _, src := range []string{
		`for b in $(find role:link); do click $b; done`,
		`for b in $(grep -r '^link '); do click "$b"; done`,
		`for b in $(ls -l | grep Safe); do cat "$b" | grep name; done`,
	} {
		if _, err := e.try(src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
		if got := e.status(); strings.Contains(got, "deleted") {
			t.Fatalf("%s pressed the button: %q", src, got)
		}
	}
}

// TestLinesThatAreNotCanopys: a line canopy did not write as it is
// names no node, and says so in one line; the session goes on.
func TestLinesThatAreNotCanopys(t *testing.T) {
	e := openWords(t, "/ref-in-name.html")
	e.requireRef("e1")
	got := e.transcript(
		`click 'link "Safe e1 link"'`,
		`click 'link "Safe e1 link" status'`,
		`click 'link "Safe \q e1" e2'`,
		`click 'link "Safe e1 link e2'`,
		`click '"Safe e1 link" e1'`,
		`click 'no element matches role:link; closest: button "Delete account" e1'`,
		`cat 'link "Safe e1 link" e2' | grep '^(name|ref):'`,
		`cat 'tab 1 "Words" 127.0.0.1/x current' | grep tab`,
	)
	goldentest.Check(t, "testdata/lines.golden", got)
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "error: ") && strings.Count(line, "error: ") != 1 {
			t.Errorf("an error that is not one line: %q", line)
		}
	}
	if got := e.status(); got != "Nothing pressed" {
		t.Fatalf("the status is %q: a line that is not canopy's pressed something", got)
	}
}

// TestPathsEscapeNames: ls prints names with the path syntax's
// characters escaped, so the path ls printed names the node it listed.
func TestPathsEscapeNames(t *testing.T) {
	e := openWords(t, "/at-in-name.html")
	e.requireRef("e1")
	out := e.run(`for p in $(ls | grep link); do click "$p"; done`)
	if got := e.status(); got != "Opened Read the docs@e1" {
		t.Fatalf("after clicking every link ls listed, the status is %q (want the link opened, the button not pressed); output:\n%s", got, out)
	}
	if _, err := e.try(`click 'link:Read the docs@e1'`); err == nil || !strings.Contains(err.Error(), `is button:Delete account`) {
		t.Errorf("a path whose @ref names another node: %v", err)
	}
	if got := e.status(); got != "Opened Read the docs@e1" {
		t.Fatalf("the status is %q", got)
	}
}

// TestOddNamesRoundTrip: names made of the path syntax's characters are
// listed escaped, and each path ls printed names the node it listed.
func TestOddNamesRoundTrip(t *testing.T) {
	e := openWords(t, "/odd-names.html")
	listed := e.run("ls")
	goldentest.Check(t, "testdata/odd-names.golden", listed)
	// Each button by its name as cat prints it (a backslash doubled).
	pressed := map[string]string{"a/b": "Pressed slash", "mail@e1": "Pressed at", "100% off %2F": "Pressed percent",
		"*": "Pressed star", `[x]? \\ y`: "Pressed glob", "..": "Pressed dots", `say "hi" e1 now`: "Pressed quote"}
	clicked := 0
	for _, p := range strings.Split(strings.TrimSpace(listed), "\n") {
		if strings.HasPrefix(p, "button:Delete") || !strings.HasPrefix(p, "button:") {
			continue
		}
		quoted := `'` + strings.ReplaceAll(p, `'`, `'\''`) + `'`
		name := strings.TrimSuffix(strings.TrimPrefix(e.run(`cat `+quoted+` | grep '^name: '`), "name: "), "\n")
		want, ok := pressed[name]
		if !ok {
			t.Errorf("cat %s names %q, no button of the page", p, name)
			continue
		}
		e.run(`click ` + quoted)
		if got := e.status(); got != want {
			t.Errorf("click %s (the button %q): the status is %q, want %q", p, name, got, want)
		}
		if path := e.run(`cat ` + quoted + ` | grep '^path: '`); path != "path: /tab1/"+p+"\n" {
			t.Errorf("cat %s: %s", p, path)
		}
		clicked++
	}
	if clicked != len(pressed) {
		t.Errorf("ls listed %d of the page's %d odd names:\n%s", clicked, len(pressed), listed)
	}
	// A glob has a '*' or a '['; a '?' alone is the name's own.
	if _, err := e.try(`cat 'button:Delete accoun?'`); err == nil || !strings.Contains(err.Error(), `no "button:Delete accoun?" here`) {
		t.Errorf("a segment with a ? read as a glob: %v", err)
	}
	if got := e.run(`cat 'button:Delete acc*' | grep '^name'`); got != "name: Delete account\n" {
		t.Errorf("a glob: %q", got)
	}
	// Completion offers the escaped form, typed either way.
	for typed, want := range map[string]string{
		"click button:mail@": `button:mail%40e1`,
		"click button:mail%": `button:mail%40e1`,
		"cat button:a/":      "",
		"cat button:a%2":     `button:a%2Fb`,
		"cat button:[":       `button:%5Bx%5D?\ %5C\ y`,
	} {
		_, items, _ := e.sh.Complete(e.ctx, typed, len([]rune(typed)))
		if strings.Join(items, ",") != want {
			t.Errorf("complete %q: %q, want %q", typed, items, want)
		}
	}
	// A loop over what ls printed presses each button once, and never the
	// Delete account button it leaves out.
	out := e.run(`for p in $(ls | grep -v Delete | grep button); do click "$p" | head -n 0; echo "$p"; done`)
	if n := strings.Count(out, "\n"); n != 7 {
		t.Errorf("the loop clicked %d buttons, want 7:\n%s", n, out)
	}
	if got := e.status(); strings.Contains(got, "deleted") {
		t.Fatalf("a loop over ls pressed the Delete account button")
	}
}

// TestValuesStayWords: a variable's value, quoted or not, is one word of
// data: the target, or the text to type, never a step's keyword or a
// command's flag.
func TestValuesStayWords(t *testing.T) {
	e := openWords(t, "/steps-in-text.html")
	for _, tc := range []struct{ src, value string }{
		{`for x in $(text | grep cats); do type form/textbox:Search $x; done`, `"cats" submit`},
		{`for x in $(text | grep credential); do type form/textbox:Search $x; done`, `credential:github`},
		{`for x in $(text | grep -e --clear); do type form/textbox:Search $x; done`, `--clear`},
		{`type form/textbox:Search $(text | grep cats)`, `"cats" submit`},
		{`for x in $(text | grep cats); do type form/textbox:Search "$x"; done`, `"cats" submit`},
	} {
		e.run(`type form/textbox:Search "" clear | head -n 0`)
		if _, err := e.try(tc.src); err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got := e.run("cat form/textbox:Search | grep value"); got != "value: "+tc.value+"\n" {
			t.Errorf("%s: the box holds %q, want %q typed as it is", tc.src, got, tc.value)
		}
		if got := e.status(); got != "Nothing pressed" {
			t.Fatalf("%s: the status is %q: the page's text became a step", tc.src, got)
		}
	}
	// A value is never a flag of grep, nor a command.
	if got := e.run(`for f in $(text | grep -e --clear); do text | grep $f; done`); got != "--clear\n" {
		t.Errorf("grep $f with f=--clear: %q", got)
	}
	if _, err := e.try(`for c in $(text | grep cats); do $c; done`); err == nil || !strings.Contains(err.Error(), "a command's name is written as it is") {
		t.Errorf("a command named by page text: %v", err)
	}
	if got := e.status(); got != "Nothing pressed" {
		t.Fatalf("the status is %q", got)
	}
	// Legitimate uses of values still work: a ref, a path, a selector.
	ref := strings.Fields(e.run(`find role:textbox`))[2]
	for _, tc := range []struct{ src, value string }{
		{`for r in ` + ref + `; do type $r "by ref" clear; done`, "by ref"},
		{`for p in form/textbox:Search; do type $p "by path" clear; done`, "by path"},
		{`for s in 'role:textbox name:Search'; do type $s "by selector" clear; done`, "by selector"},
		{`for l in $(find role:textbox); do type "$l" "by line" clear; done`, "by line"},
		{`for n in Search; do type role:textbox name:$n "by name" clear; done`, "by name"},
		{`for k in End; do press $k; done`, "by name"},
	} {
		if _, err := e.try(tc.src); err != nil {
			t.Errorf("%s: %v", tc.src, err)
		}
		if got := e.run("cat form/textbox:Search | grep value"); got != "value: "+tc.value+"\n" {
			t.Errorf("%s: the box holds %q, want %q", tc.src, got, tc.value)
		}
	}
	if got := e.status(); got != "Nothing pressed" {
		t.Fatalf("the status is %q", got)
	}
}
