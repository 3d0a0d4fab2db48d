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
	if strings.ContainsAny(r.Text, "\u200b\u2060\ufeff\u00ad") {
		a.t.Errorf("%s: the reply holds invisible characters:\n%q", step, r.Text)
	}
	if same := churn(r.Text); len(same) > 0 {
		a.t.Errorf("%s: the reply removes and adds the same %q (a re-render is one ~ line with the new ref):\n%s", step, same, r.Text)
	}
	return r.Text
}

var refRE = regexp.MustCompile(`\be\d+\b`)

// churn returns the lines the reply shows both as removed and as added, refs
// aside: a node that was re-rendered as it was, said twice. Only added
// nodes printed alone count (an added list holds other things than the
// removed one did).
func churn(reply string) []string {
	removed := map[string]bool{}
	for _, l := range changed(reply, "-") {
		removed[refRE.ReplaceAllString(l, "eN")] = true
	}
	var out []string
	lines := strings.Split(reply, "\n")
	for i, line := range lines {
		rest, ok := strings.CutPrefix(line, "+ ")
		if !ok || strings.HasPrefix(rest, " ") {
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+   ") {
			continue // it has children
		}
		if l := refRE.ReplaceAllString(strings.TrimSuffix(rest, ` (in `+refRE.FindString(rest)+`)`), "eN"); removed[l] {
			out = append(out, l)
		}
	}
	return out
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

// rerendered matches a changed line that only gives a node's new ref
// (`~ checkbox "Buy milk" e12 → e17`): it neither shows nor hides text.
var rerendered = regexp.MustCompile(`\be\d+ → e\d+$`)

// shows reports whether the reply shows text as new: on an added line, or
// after the arrow of a changed line.
func shows(reply, text string) bool {
	for _, l := range changed(reply, "+") {
		if strings.Contains(l, text) {
			return true
		}
	}
	for _, l := range changed(reply, "~") {
		if rerendered.MatchString(l) {
			continue
		}
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
		if rerendered.MatchString(l) {
			continue
		}
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

	// The app rebuilds its list on every change: the first item's
	// checkbox is a new node, said in one line with its new ref.
	r = a.do(`type ` + input + ` "Walk the dog" submit`)
	a.expect(has(r, "+", `^listitem\b`) && shows(r, `"Walk the dog"`), `a new listitem "Walk the dog"`, r)
	a.expect(shows(r, `"2 items left"`), `the counter going to 2`, r)
	a.expect(has(r, "~", `^checkbox "Buy milk" e\d+ → e\d+$`), `the first item's checkbox under its new ref`, r)

	// The app's checkboxes have no label: each is named by its item's
	// text, which stays beside it.
	r = a.do(`check role:checkbox name:"Buy milk"`)
	a.expect(has(r, "~", `^checkbox "Buy milk" e\d+: not checked → checked`), `the "Buy milk" checkbox checked`, r)
	a.expect(shows(r, `"1 item left"`), `the counter going to 1`, r)
	a.expect(shows(r, `Clear completed`), `the "Clear completed" button`, r)

	// A filter: the item that went, by its text, not one item renamed
	// into the other.
	r = a.do(`click role:link name:Active`)
	a.expect(outcome(r, `^navigated .*#/active$`), "the navigation to #/active", r)
	a.expect(has(r, "-", `^listitem "Buy milk"`), `the listitem "Buy milk" removed`, r)
	a.expect(!hides(r, `"Walk the dog"`) && !shows(r, `"Walk the dog"`), `"Walk the dog" staying as it was`, r)

	r = a.do(`click role:link name:Completed`)
	a.expect(outcome(r, `^navigated .*#/completed$`), "the navigation to #/completed", r)
	a.expect(has(r, "-", `^listitem "Walk the dog"`) && has(r, "+", `^listitem\b`) && shows(r, `"Buy milk"`),
		`"Walk the dog" removed and "Buy milk" added`, r)
	a.expect(!has(r, "~", `"Walk the dog" → "Buy milk"`), `no rename of one item into the other`, r)

	r = a.do(`click role:link name:All`)
	a.expect(has(r, "+", `^listitem\b`) && shows(r, `"Walk the dog"`), `"Walk the dog" back in the list`, r)

	r = a.do(`click role:button name~:"Clear completed"`)
	a.expect(has(r, "-", `^listitem "Buy milk"`), `the completed item, "Buy milk", removed`, r)
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

	// The arrow button's label is "get \u200b/pets": the zero-width space
	// is left out.
	r := a.do(`click role:button name:"GET /pets List pets"`)
	a.expect(has(r, "~", `^button "GET /pets List pets".*collapsed → expanded`), "the operation expanded", r)
	a.expect(has(r, "~", `^button "get /pets" e\d+: collapsed → expanded`), "the arrow button expanded", r)
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

	// The copy button sits in a div with its name: one line, the button's.
	r = a.do(`click role:button name:Execute`)
	a.expect(shows(r, "/api/pets?species=dog&limit=5"), "the request URL", r)
	a.expect(shows(r, "Rex"), "the response body", r)
	a.expect(has(r, "+", `^button "Copy cURL command to clipboard" e\d+$`) && !has(r, "+", `^generic "Copy cURL`),
		"the copy button once, without its wrapper", r)

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

	// jsoneditor's expand button carries no expanded or collapsed state
	// (no aria-expanded; only its class toggles between jsoneditor-expanded
	// and jsoneditor-collapsed, and class words are styling, not state:
	// Foundation's "button expanded" is a full-width button), so the reply
	// shows the children that came, no `~ button`.
	r := a.do(`click role:row name~:"| customer" >> role:button name~:"expand/collapse"`)
	a.expect(shows(r, "Ada Lovelace") && shows(r, "ada@example.test"), "the customer's fields", r)

	// Values are contenteditable divs the tree calls generic. The
	// breadcrumb is redrawn on every change: what stays is one line with
	// its new ref (do checks that nothing is removed and added the same).
	r = a.do(`type role:generic name:string value:pending "shipped" clear`)
	a.expect(has(r, "~", `value "pending" → "shipped"`), "the edited value", r)
	a.expect(has(r, "~", `^generic "order" e\d+ → e\d+$`), "the breadcrumb's first crumb under its new ref", r)

	r = a.do(`click role:row name~:"notes : null" >> ` + menu)
	a.expect(has(r, "+", `^button "Remove"`) && has(r, "+", `^button "Duplicate"`), "the actions menu", r)

	r = a.do(`click role:button name:Remove`)
	a.expect(hides(r, "notes : null"), "the notes field removed", r)

	r = a.do(`click role:row name~:"status : shipped" >> ` + menu)
	a.expect(has(r, "+", `^button "Duplicate"`), "the actions menu", r)

	// jsoneditor names the copy "status (copy)" at once (its breadcrumb
	// says so) but shows the original key in the copy's field, focused,
	// for the user to edit; it writes the unique name into the field only
	// when the field loses focus (Node.onDuplicate, then the field's blur
	// handler, _getDomField(true)). So the rename is news of the next
	// action, whatever moves the focus.
	r = a.do(`click role:button name:Duplicate`)
	a.expect(has(r, "+", `^row\b.*status`), "the duplicated field", r)
	a.expect(has(r, "+", `^generic "field" e\d+ focused clickable value="status"`), "the copy's key, focused", r)
	a.expect(has(r, "+", `^generic "status \(copy\)"`), "the breadcrumb naming the copy", r)

	r = a.do(`click role:button name~:"Tree"`)
	a.expect(has(r, "+", `^button "Text"`) && has(r, "+", `^button "Code"`), "the mode menu", r)
	a.expect(has(r, "~", `^generic "field" e\d+: value "status" → "status \(copy\)"`), "the copy's key renamed on blur", r)

	r = a.do(`click role:button name:Text`)
	a.expect(has(r, "+", `^textbox\b.*multiline.*1042`), "the text editor with the document", r)
	a.expect(has(r, "-", `^table\b`), "the tree gone", r)
}
