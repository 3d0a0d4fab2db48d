package shell_test

import (
	"strings"
	"testing"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/goldentest"
)

// transcript runs each command and records it with its output (or
// error) as a terminal would show it.
func (e *env) transcript(cmds ...string) string {
	e.t.Helper()
	var b strings.Builder
	for _, c := range cmds {
		out, err := e.try(c)
		b.WriteString("$ " + c + "\n" + out)
		if err != nil {
			b.WriteString("error: " + stable(err.Error()) + "\n")
		}
	}
	return b.String()
}

// TestLooking reads the login page with every looking command.
func TestLooking(t *testing.T) {
	e := newEnv(t, "/login.html", canopy.Config{})
	got := e.transcript(
		"pwd", "ls", "ls -l", "ls /", "ls /tabs",
		"cd form:Login", "pwd", "ls", "cat textbox:Email", "cat ..",
		"tree", "tree 1 /tab1", "cd", "grep Sign", "grep -r Sign", "grep -ri 'remember|forgot'",
		"find role:textbox", "find form:Login role:button", "find role:button name:Nope",
		"text form:Login", "ls | wc -l", "ls -l form:Login | grep -v box",
		"cd form:Login/nothing", "cat form:Login/textbox:Emial", "cd /tab7", "frobnicate",
	)
	goldentest.Check(t, "testdata/looking.golden", got)
}

// TestActing acts by path, by ref and by selector inside the working
// folder; each answers with its diff.
func TestActing(t *testing.T) {
	e := newEnv(t, "/login.html", canopy.Config{})
	got := e.transcript(
		"cd form:Login",
		`type textbox:Email "ada@example.com"`,
		`type 'textbox:Password' "correct horse"`,
		"check 'checkbox:Remember me'",
		"check 'checkbox:Remember me'",
		"submit .",
		"cd /tab1; cat status",
		"click role:link",
		"click 'form:Login/button:Sign in' extra",
		"find 'role:form >> role:button'",
		"cd /tab1; click 'role:form >> role:checkbox'",
		"grep -rc box",
	)
	goldentest.Check(t, "testdata/acting.golden", got)
}

// TestPathsStay: look-alike siblings are named by ref, never by position,
// so a path names the same node after the page inserts content above it.
func TestPathsStay(t *testing.T) {
	e := newEnv(t, "/guide-1.html", canopy.Config{})
	before := e.run("ls main/table:Notes")
	rows := strings.Split(strings.TrimSpace(before), "\n")
	if len(rows) != 3 || !strings.HasPrefix(rows[1], "row:First note | Edit/") {
		t.Fatalf("ls table:Notes:\n%s", before)
	}
	edit := strings.TrimSpace(e.run("ls 'main/table:Notes/" + strings.TrimSuffix(rows[2], "/") + "'"))
	if edit != "button:Edit" {
		t.Fatalf("the second row holds:\n%s", edit)
	}
	second := "main/table:Notes/" + rows[2] + "button:Edit"
	if _, err := e.try("click 'button:Add a note at the top'"); err == nil || !strings.Contains(err.Error(), `no "button:Add a note at the top" here; deeper: /tab1/main/button:Add a note at the top`) {
		t.Errorf("a path that names nothing: %v", err)
	}
	e.run("click 'main/button:Add a note at the top'")
	e.run("click 'main/button:Add a note at the top'")
	after := e.run("ls main/table:Notes")
	if !strings.Contains(after, rows[1]) || !strings.Contains(after, rows[2]) || strings.Count(after, "\n") != 5 {
		t.Fatalf("after inserting two rows above, ls table:Notes:\n%s\nwant it to hold\n%s", after, before)
	}
	out := e.run("click '" + second + "'")
	if !strings.Contains(out, `"Editing Second note"`) {
		t.Errorf("click %s after the inserts: %s", second, out)
	}
	// Look-alike buttons in different rows are told apart by their rows;
	// look-alike siblings by ref.
	if got := e.run("cd main/table:Notes; cd '" + rows[1] + "'; pwd"); !strings.HasPrefix(got, "/tab1/main/table:Notes/row:First note") {
		t.Errorf("pwd: %q", got)
	}
	paras := e.run("cd /tab1/main; ls | grep paragraph")
	if !strings.Contains(paras, "paragraph:Inserted paragraph 1") {
		t.Errorf("the paragraphs after the inserts:\n%s", paras)
	}
}

// TestObserveRefusesEveryAct: at the observe tier every acting command is
// refused by the gate — typed directly, inside for, inside each tab and
// inside a script — and the page is left as it was.
func TestObserveRefusesEveryAct(t *testing.T) {
	e := newEnv(t, "/login.html", canopy.Config{Allow: action.Observe})
	if out := e.run("ls form:Login"); !strings.Contains(out, "checkbox:Remember me") {
		t.Fatalf("reading at observe: %q", out)
	}
	for _, src := range []string{
		"check 'form:Login/checkbox:Remember me'",
		"click role:checkbox",
		`type form:Login/textbox:Email "x"`,
		"submit form:Login",
		"press Enter",
		"back",
		`open "` + testSite.URL("/guide-1.html") + `"`,
		"for c in $(find role:checkbox); do check \"$c\"; done",
		"for c in 'form:Login/checkbox:Remember me'; do echo next; click $c; done",
		"each tab do check role:checkbox; done",
		"each tab click role:checkbox",
		"script save tick do check role:checkbox; done; script run tick",
		"script save tock do script run tick; done; script run tock",
		"cd /tab2",
	} {
		out, err := e.try(src)
		if err == nil || !strings.Contains(err.Error(), "needs the act tier; this session allows observe") && !strings.Contains(err.Error(), "no tab 2") {
			t.Errorf("%s: output %q, error %v; want the act tier refused", src, out, err)
		}
	}
	if got := e.run("cat 'form:Login/checkbox:Remember me' | grep states"); got != "" {
		t.Errorf("the checkbox changed at observe: %q", got)
	}
}

// TestThreePages: one for loop over three pages collects every link of
// their navs.
func TestThreePages(t *testing.T) {
	e := newEnv(t, "", canopy.Config{})
	src := `for p in ` + testSite.URL("/guide-1.html") + " " + testSite.URL("/guide-2.html") + " " + testSite.URL("/guide-3.html") + `; do
  open $p | head -n 0
  ls navigation:Sections/list | grep link
done`
	got := e.run(src)
	goldentest.Check(t, "testdata/three-pages.golden", got)
	if n := strings.Count(got, "link:"); n != 9 {
		t.Errorf("%d links, want 9:\n%s", n, got)
	}
}

// TestEachTab runs a command in every tab and comes back to the first.
func TestEachTab(t *testing.T) {
	e := newEnv(t, "/guide-1.html", canopy.Config{})
	e.run(`tabs new "` + testSite.URL("/guide-2.html") + `"`)
	e.run("cd /tab1")
	got := e.run("each tab do text main | grep Part; done")
	goldentest.Check(t, "testdata/each-tab.golden", got)
	if pwd := e.run("pwd"); pwd != "/tab1\n" {
		t.Errorf("after each tab, pwd = %q", pwd)
	}
	if out := e.run("cd /tab2; pwd; cd /tabs/1; pwd"); out != "/tab2\n/tab1\n" {
		t.Errorf("cd between tabs: %q", out)
	}
}

// TestSubmitEverywhere: submit on a form presses Enter in its first field
// in the executor, so a step and a library call submit as the shell does.
func TestSubmitEverywhere(t *testing.T) {
	e := newEnv(t, "/login.html", canopy.Config{})
	steps, err := action.ParseSteps(`type role:textbox name:Email "ada@example.com"; type role:textbox name:Password "pw"; submit role:form name:Login`)
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, st := range steps {
		r, err := e.sess.Run(e.ctx, st)
		if err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		last = r.Text
	}
	if !strings.Contains(last, `"Welcome back, ada@example.com!"`) {
		t.Errorf("submit role:form: %q", last)
	}
	if _, err := e.try("cd /tab1; submit 'paragraph:Use your work account.'"); err == nil {
		t.Errorf("submit on a paragraph was not refused")
	}
}
