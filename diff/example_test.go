package diff_test

import (
	"fmt"

	"github.com/canopy-dev/canopy/diff"
	"github.com/canopy-dev/canopy/tree"
)

func Example() {
	page := func(checked bool, dialog bool) *tree.Snapshot {
		box := &tree.Node{Role: "checkbox", Name: "Remember me", Ref: "e16"}
		if checked {
			box.States = tree.Checked
		}
		root := &tree.Node{Role: tree.RoleDocument, Name: "Acme", Children: []*tree.Node{
			{Role: "form", Name: "Login", Ref: "e10", Children: []*tree.Node{
				{Role: "textbox", Name: "Email", Ref: "e13"},
				box,
			}},
		}}
		if dialog {
			root.Children = append(root.Children, &tree.Node{Role: "dialog", Name: "Confirm delete", Ref: "e40",
				Children: []*tree.Node{{Role: "button", Name: "Delete", Ref: "e41", States: tree.Focused}}})
		}
		return &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "Acme"}, Root: root}
	}
	before, after := page(true, false), page(false, true)
	after.Root.Children[0].Children[0].Value = "a@b.c"

	d := diff.Compute(before, after)
	d.Prepend("navigated /login → /dashboard") // an outcome only the source knows
	fmt.Print(d.Format(diff.Options{}))

	fmt.Print(diff.Compute(after, after).Format(diff.Options{}))
	// Output:
	// navigated /login → /dashboard
	// opened dialog "Confirm delete" e40
	//   button "Delete" e41 focused
	// ~ textbox "Email" e13: value "" → "a@b.c"
	// ~ checkbox "Remember me" e16: checked → not checked
	// no change
}
