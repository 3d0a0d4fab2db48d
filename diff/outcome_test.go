package diff_test

import (
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/diff"
	"github.com/canopy-dev/canopy/tree"
)

// n builds a node with a ref.
func n(role, name, ref string, kids ...*tree.Node) *tree.Node {
	return &tree.Node{Role: role, Name: name, Ref: ref, Children: kids}
}

func page(kids ...*tree.Node) *tree.Snapshot {
	return &tree.Snapshot{Header: tree.Header{Kind: "tab", Title: "t"}, Root: &tree.Node{Role: tree.RoleDocument, Children: kids}}
}

func focused(x *tree.Node) *tree.Node { x.States |= tree.Focused; return x }

// TestDropFocusOn: focus that moved to a target, or to the node a re-render
// put in its place, is no outcome; focus that moved elsewhere (into the
// target too) is.
func TestDropFocusOn(t *testing.T) {
	input := func() *tree.Node { return n("textbox", "New item", "e2") }
	button := func() *tree.Node { return n("button", "Add item", "e3") }
	before := page(n("form", "Add", "e1", input(), button(), n("button", "Add item", "e9")))
	for _, tc := range []struct {
		name    string
		after   *tree.Snapshot
		targets []*tree.Node
		want    string // the focus line left, or ""
	}{
		{"the target", page(n("form", "Add", "e1", input(), focused(button()), n("button", "Add item", "e9"))), []*tree.Node{button()}, ""},
		{"a batch's earlier target", page(n("form", "Add", "e1", focused(input()), button(), n("button", "Add item", "e9"))), []*tree.Node{input(), nil}, ""},
		{"inside the target", page(n("form", "Add", "e1", focused(input()), button(), n("button", "Add item", "e9"))), []*tree.Node{n("form", "Add", "e1")}, `focus → textbox "New item" e2`},
		{"a re-rendered target", page(n("form", "Add", "e1", input(), focused(n("button", "Add item", "e9")))), []*tree.Node{button()}, ""},
		{"elsewhere", page(n("form", "Add", "e1", focused(input()), button(), n("button", "Add item", "e9"))), []*tree.Node{button()}, `focus → textbox "New item" e2`},
		{"a namesake while the target stays", page(n("form", "Add", "e1", input(), button(), focused(n("button", "Add item", "e9")))),
			[]*tree.Node{button()}, `focus → button "Add item" e9`},
		{"no target", page(n("form", "Add", "e1", input(), focused(button()), n("button", "Add item", "e9"))), nil, `focus → button "Add item" e3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := diff.Compute(before, tc.after)
			d.DropFocusOn(tc.targets...)
			var got string
			for _, o := range d.Outcomes {
				if strings.HasPrefix(o, "focus") {
					got = o
				}
			}
			if got != tc.want {
				t.Errorf("focus line %q, want %q:\n%s", got, tc.want, d.Format(diff.Options{}))
			}
		})
	}
}

// TestOpenedDialogOnce: an opened dialog's content is printed once, under
// its outcome line, with the rest of what was added still listed; a dialog
// inside a larger added block is printed in that block.
func TestOpenedDialogOnce(t *testing.T) {
	before := page(n("main", "", "e1"))
	after := page(n("main", "", "e1"), n("dialog", "Rename", "e2", n("textbox", "Name", "e3")), n("status", "", "e4", &tree.Node{Role: tree.RoleText, Name: "Busy"}))
	got := diff.Compute(before, after).Format(diff.Options{})
	want := "opened dialog \"Rename\" e2\n  textbox \"Name\" e3\n+ status e4\n+   \"Busy\"\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}

	after = page(n("main", "", "e1", n("region", "Panel", "e5", n("dialog", "Rename", "e2", n("textbox", "Name", "e3")))))
	got = diff.Compute(before, after).Format(diff.Options{})
	if strings.Count(got, `textbox "Name" e3`) != 1 || !strings.HasPrefix(got, "opened dialog \"Rename\" e2\n+ region") {
		t.Errorf("nested dialog:\n%s", got)
	}
}

// TestCollapsedSelectSelection: choosing an option of a collapsed select
// says the new value only; in an open listbox the options' changes show.
func TestCollapsedSelectSelection(t *testing.T) {
	sel := func(role string, s tree.State, value string) *tree.Snapshot {
		eu, as := n("option", "Europe", "e4"), n("option", "Asia", "e5")
		if value == "Europe" {
			eu.States = tree.Selected
		} else {
			as.States = tree.Selected
		}
		c := n(role, "Region", "e3", eu, as)
		c.States, c.Value = s, value
		return page(c)
	}
	got := diff.Compute(sel("combobox", tree.Collapsed, "Europe"), sel("combobox", tree.Collapsed, "Asia")).Format(diff.Options{})
	if got != "~ combobox \"Region\" e3: value \"Europe\" → \"Asia\"\n" {
		t.Errorf("collapsed select:\n%s", got)
	}
	got = diff.Compute(sel("listbox", 0, "Europe"), sel("listbox", 0, "Asia")).Format(diff.Options{})
	if !strings.Contains(got, `~ option "Asia" e5: not selected → selected`) {
		t.Errorf("listbox:\n%s", got)
	}
}
