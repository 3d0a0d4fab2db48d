package extract

import (
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

func node(role, name, ref string, kids ...*tree.Node) *tree.Node {
	return &tree.Node{Role: role, Name: name, Ref: ref, Children: kids}
}

func with(n *tree.Node, value string, st tree.State) *tree.Node {
	n.Value, n.States = value, st
	return n
}

// loginTree is a cleaned tree of a sign-in page: a form with an email, a
// filled password, a checkbox, a radio group, a listbox and a select, plus
// controls outside any form.
func loginTree() *tree.Node {
	return node("document", "Sign in", "",
		node("heading", "Sign in", ""),
		node("searchbox", "Search site", "e3"),
		node("form", "Sign in", "e10",
			node("generic", "", "",
				with(node("textbox", "Email", "e13"), "a@b.c", tree.Required|tree.Focused),
				with(node("textbox", "Password", "e14"), "hunter2-SECRET", tree.Protected|tree.Required),
			),
			with(node("checkbox", "Remember me", "e16"), "", tree.Checked),
			with(node("switch", "Dark mode", "e17"), "", 0),
			node("radiogroup", "Plan", "e20",
				with(node("radio", "Free", "e21"), "", tree.Checked),
				node("radio", "Pro", "e22"),
			),
			node("group", "", "",
				with(node("checkbox", "Terms", "e25"), "", tree.Mixed|tree.Invalid),
			),
			node("group", "Shipping", "e30",
				with(node("combobox", "Country", "e31"), "Germany", 0),
				with(node("spinbutton", "Quantity", "e32"), "2", tree.Disabled),
				with(node("slider", "Volume", "e33"), "70", 0),
			),
			node("listbox", "Colours", "e40",
				with(node("option", "Red", "e41"), "", tree.Selected),
				node("option", "Green", "e42"),
				with(node("option", "Blue", "e43"), "", tree.Selected),
			),
			node("listbox", "Sizes", "e45", node("option", "S", "e46")),
			with(node("textbox", "Notes", "e50"), "line one\nsays \"hi\"", tree.Multiline),
			node("button", "Sign in", "e60"),
		),
		node("group", "Empty group", "e70", node("button", "Nothing", "e71")),
	)
}

func TestForm(t *testing.T) {
	got := Form(loginTree())
	want := strings.Join([]string{
		`searchbox "Search site" e3 = ""`,
		`form "Sign in" e10`,
		`  textbox "Email" e13 required = "a@b.c"`,
		`  textbox "Password" e14 required = (protected)`,
		`  checkbox "Remember me" e16 = checked`,
		`  switch "Dark mode" e17 = not checked`,
		`  radiogroup "Plan" e20`,
		`    radio "Free" e21 = checked`,
		`    radio "Pro" e22 = not checked`,
		`  checkbox "Terms" e25 invalid = mixed`,
		`  group "Shipping" e30`,
		`    combobox "Country" e31 = "Germany"`,
		`    spinbutton "Quantity" e32 disabled = "2"`,
		`    slider "Volume" e33 = "70"`,
		`  listbox "Colours" e40 = "Red", "Blue"`,
		`  listbox "Sizes" e45 = (none selected)`,
		`  textbox "Notes" e50 = "line one\nsays \"hi\""`,
	}, "\n")
	if got != want {
		t.Errorf("Form:\n%s\nwant:\n%s", got, want)
	}
}

func TestFormProtectedNeverPrinted(t *testing.T) {
	// A protected value is hidden wherever it sits: a scope that is the
	// field itself, a field with a hint instead of a name, an unnamed one.
	pw := with(node("textbox", "", "e5"), "hunter2-SECRET", tree.Protected)
	pw.Hint = "pass"
	for _, root := range []*tree.Node{loginTree(), pw, node("form", "", "e1", pw)} {
		if got := Form(root); strings.Contains(got, "hunter2") {
			t.Errorf("protected value printed:\n%s", got)
		}
	}
	if got, want := Form(pw), `textbox "pass" e5 = (protected)`; got != want {
		t.Errorf("Form(pw) = %q, want %q", got, want)
	}
}

func TestFormNone(t *testing.T) {
	for _, root := range []*tree.Node{nil, node("document", "x", "", node("link", "Home", "e1"))} {
		if got := Form(root); got != "no form controls" {
			t.Errorf("Form = %q, want %q", got, "no form controls")
		}
	}
}
