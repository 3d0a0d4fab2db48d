package thirdparty_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/thirdparty"
)

// serve serves the third-party apps for one test. Without the npm packages
// the test skips on a developer's machine and fails under CI=true, where
// scripts/deps.sh installs them.
func serve(t *testing.T) *thirdparty.Server {
	t.Helper()
	mods, err := thirdparty.NodeModules()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := thirdparty.Serve(ctx, mods)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// agent is a session on a fresh headless Chromium, opened on one app.
type agent struct {
	t    *testing.T
	sess *canopy.Session
}

// open launches Chromium through the library, as an agent's host would,
// and navigates to the app at path.
func open(t *testing.T, s *thirdparty.Server, path string) *agent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := canopy.Open(ctx, canopy.Config{})
	if err != nil {
		t.Fatalf("open a session (install Chromium: apt-get install chromium): %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	a := &agent{t: t, sess: sess}
	a.do(`navigate "` + s.URL(path) + `"`)
	return a
}

// do runs one step and returns its reply's text; the step must succeed.
func (a *agent) do(step string) string {
	a.t.Helper()
	steps, err := action.ParseSteps(step)
	if err != nil {
		a.t.Fatalf("parse %q: %v", step, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := a.sess.Run(ctx, steps[0])
	if err != nil {
		a.t.Fatalf("%s: %v", step, err)
	}
	a.t.Logf("> %s\n%s", step, r.Text)
	return r.Text
}

// changed returns the reply's change lines of one kind: "+" added, "-"
// removed, "~" changed (the marker and the indentation after it cut).
func changed(reply, kind string) []string {
	var out []string
	for line := range strings.SplitSeq(reply, "\n") {
		if rest, ok := strings.CutPrefix(line, kind+" "); ok {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return out
}

// shows reports whether the reply shows text as new: on an added line, or
// after the arrow of a changed line.
func shows(reply, text string) bool {
	for _, l := range changed(reply, "+") {
		if strings.Contains(l, text) {
			return true
		}
	}
	for _, l := range changed(reply, "~") {
		if _, after, ok := strings.Cut(l, "→"); ok && strings.Contains(after, text) {
			return true
		}
	}
	return false
}

// hides reports whether the reply shows text as gone: on a removed line,
// or before the arrow of a changed line.
func hides(reply, text string) bool {
	for _, l := range changed(reply, "-") {
		if strings.Contains(l, text) {
			return true
		}
	}
	for _, l := range changed(reply, "~") {
		if before, _, ok := strings.Cut(l, "→"); ok && strings.Contains(before, text) {
			return true
		}
	}
	return false
}

// has reports whether a line of the reply of this kind ("+", "-", "~")
// matches re.
func has(reply, kind, re string) bool {
	r := regexp.MustCompile(re)
	for _, l := range changed(reply, kind) {
		if r.MatchString(l) {
			return true
		}
	}
	return false
}

// outcome reports whether an unmarked line of the reply (an outcome line
// such as "navigated …") matches re.
func outcome(reply, re string) bool {
	r := regexp.MustCompile(re)
	for line := range strings.SplitSeq(reply, "\n") {
		if r.MatchString(line) {
			return true
		}
	}
	return false
}

// expect fails the step's check with the reply when ok is false.
func (a *agent) expect(ok bool, what, reply string) {
	a.t.Helper()
	if !ok {
		a.t.Errorf("the reply does not show %s:\n%s", what, reply)
	}
}

// TestTodoMVC drives TodoMVC's vanilla JavaScript app the way an agent
// would and checks that every reply shows what the action changed.
func TestTodoMVC(t *testing.T) {
	a := open(t, serve(t), thirdparty.Apps[0].Path)
	const input = `role:textbox name:"What needs to be done?"`

	r := a.do(`type ` + input + ` "Buy milk" submit`)
	a.expect(has(r, "+", `^listitem\b`) && shows(r, `"Buy milk"`), `a new listitem "Buy milk"`, r)
	a.expect(shows(r, `"1 item left"`), `the counter "1 item left"`, r)

	r = a.do(`type ` + input + ` "Walk the dog" submit`)
	a.expect(has(r, "+", `^listitem\b`) && shows(r, `"Walk the dog"`), `a new listitem "Walk the dog"`, r)
	a.expect(shows(r, `"2 items left"`), `the counter going to 2`, r)

	// The app's checkboxes have no label: the agent scopes to the item.
	// TODO(issue16): the reply names the checkbox only by ref
	// (`~ checkbox e17: not checked → checked`), not by its item's text.
	r = a.do(`check role:listitem text:"Buy milk" >> role:checkbox`)
	a.expect(has(r, "~", `^checkbox\b.*not checked → checked`), `the checkbox checked`, r)
	a.expect(shows(r, `"1 item left"`), `the counter going to 1`, r)
	a.expect(shows(r, `Clear completed`), `the "Clear completed" button`, r)

	r = a.do(`click role:link name:Active`)
	a.expect(outcome(r, `^navigated .*#/active$`), "the navigation to #/active", r)
	a.expect(hides(r, `"Buy milk"`), `"Buy milk" leaving the list`, r)
	a.expect(has(r, "-", `^listitem\b`), "one listitem fewer", r)

	r = a.do(`click role:link name:Completed`)
	a.expect(outcome(r, `^navigated .*#/completed$`), "the navigation to #/completed", r)
	a.expect(shows(r, `"Buy milk"`) && hides(r, `"Walk the dog"`), `the list holding "Buy milk" only`, r)

	r = a.do(`click role:link name:All`)
	a.expect(has(r, "+", `^listitem\b`) && shows(r, `"Walk the dog"`), `"Walk the dog" back in the list`, r)

	// TODO(issue16): the removed item is `- listitem (in e11)`, without
	// its text: the reply does not say that "Buy milk" went.
	r = a.do(`click role:button name~:"Clear completed"`)
	a.expect(has(r, "-", `^listitem\b`), "the completed item removed", r)
	a.expect(hides(r, "Clear completed"), `the "Clear completed" button gone`, r)

	r = a.do(`double_click text:"Walk the dog"`)
	a.expect(has(r, "+", `^textbox\b.*focused.*value="Walk the dog"`), "the item's edit field, focused", r)

	r = a.do(`type role:textbox value:"Walk the dog" "Walk the cat" clear submit`)
	a.expect(shows(r, `"Walk the cat"`), "the renamed item", r)

	snap := a.do(`snapshot`)
	if !strings.Contains(snap, `"Walk the cat"`) || strings.Contains(snap, "Buy milk") || strings.Contains(snap, `"Walk the dog"`) {
		t.Errorf("the page is not what the replies said:\n%s", snap)
	}
}

// TestSwaggerUI drives Swagger UI over the petshop document: expand an
// operation, try it out, fill its parameters, execute against the local
// endpoint, collapse its tag.
func TestSwaggerUI(t *testing.T) {
	a := open(t, serve(t), thirdparty.Apps[1].Path)

	r := a.do(`click role:button name:"GET /pets List pets"`)
	a.expect(has(r, "~", `^button "GET /pets List pets".*collapsed → expanded`), "the operation expanded", r)
	a.expect(has(r, "+", `^heading "Parameters"`), "the Parameters heading", r)
	a.expect(has(r, "+", `^textbox "limit".*disabled`), `the read-only "limit" field`, r)

	r = a.do(`click role:button name:"Try it out"`)
	a.expect(has(r, "~", `^textbox "limit".*disabled → not disabled`), `"limit" becoming editable`, r)
	a.expect(has(r, "~", `^combobox\b.*disabled → not disabled`), "the species list becoming editable", r)
	a.expect(has(r, "+", `^button "Execute"`), "the Execute button", r)

	// The species list has no label: the agent scopes to its row.
	r = a.do(`select role:row name~:species >> role:combobox "dog"`)
	a.expect(has(r, "~", `^combobox\b.*value "--" → "dog"`), "the species chosen", r)

	r = a.do(`type role:textbox name:limit "5" clear`)
	a.expect(has(r, "~", `^textbox "limit".*value "10" → "5"`), "the new limit", r)

	r = a.do(`click role:button name:Execute`)
	a.expect(shows(r, "/api/pets?species=dog&limit=5"), "the request URL", r)
	a.expect(shows(r, "Rex"), "the response body", r)

	r = a.do(`click role:heading name~:"Pets for sale" >> role:button name:"Collapse operation"`)
	a.expect(has(r, "~", `expanded → collapsed`), "the tag collapsed", r)
	a.expect(hides(r, "GET /pets List pets"), "the tag's operations gone", r)
}

// TestJSONEditor drives JSONEditor in tree mode: expand a node, edit a
// value, remove and duplicate fields through the actions menu, switch to
// text mode.
func TestJSONEditor(t *testing.T) {
	a := open(t, serve(t), thirdparty.Apps[2].Path)
	const menu = `role:button name~:"actions menu"`

	// TODO(issue16): jsoneditor's expand button carries no expanded or
	// collapsed state, so the reply shows the children only, no `~ button`.
	r := a.do(`click role:row name~:"| customer" >> role:button name~:"expand/collapse"`)
	a.expect(shows(r, "Ada Lovelace") && shows(r, "ada@example.test"), "the customer's fields", r)

	// Values are contenteditable divs the tree calls generic.
	r = a.do(`type role:generic name:string value:pending "shipped" clear`)
	a.expect(has(r, "~", `value "pending" → "shipped"`), "the edited value", r)

	r = a.do(`click role:row name~:"notes : null" >> ` + menu)
	a.expect(has(r, "+", `^button "Remove"`) && has(r, "+", `^button "Duplicate"`), "the actions menu", r)

	r = a.do(`click role:button name:Remove`)
	a.expect(hides(r, "notes : null"), "the notes field removed", r)

	r = a.do(`click role:row name~:"status : shipped" >> ` + menu)
	a.expect(has(r, "+", `^button "Duplicate"`), "the actions menu", r)

	// TODO(issue16): the copy's key is renamed to "status (copy)" after
	// the reply was taken; the rename shows in the next action's reply.
	r = a.do(`click role:button name:Duplicate`)
	a.expect(has(r, "+", `^row\b.*status`), "the duplicated field", r)

	r = a.do(`click role:button name~:"Tree"`)
	a.expect(has(r, "+", `^button "Text"`) && has(r, "+", `^button "Code"`), "the mode menu", r)

	r = a.do(`click role:button name:Text`)
	a.expect(has(r, "+", `^textbox\b.*multiline.*1042`), "the text editor with the document", r)
	a.expect(has(r, "-", `^table\b`), "the tree gone", r)
}
