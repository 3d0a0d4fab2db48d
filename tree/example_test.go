package tree_test

import (
	"fmt"

	"github.com/canopy-dev/canopy/tree"
)

// A source builds nodes; Clean drops what carries nothing (the unnamed
// wrapper), Refs hands out refs that stay with each node's key, and Format
// prints the one text every surface shows.
func ExampleFormat() {
	root := &tree.Node{Role: tree.RoleDocument, Key: "doc", Children: []*tree.Node{
		{Role: "heading", Name: "Sign in", Level: 1, Key: "h"},
		{Role: tree.RoleGeneric, Key: "wrapper", Children: []*tree.Node{
			{Role: "textbox", Name: "Email", Key: "email", States: tree.Required},
			{Role: "checkbox", Name: "Remember me", Key: "remember", States: tree.Checked},
			{Role: "button", Name: "Sign in", Key: "submit"},
		}},
	}}
	tree.Clean(root)
	tree.NewRefs().Assign(root)
	snap := &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "Acme", URL: "http://127.0.0.1:8080/login"}, Root: root}
	fmt.Print(tree.Format(snap, tree.Options{}))
	// Output:
	// tab 1 "Acme" 127.0.0.1:8080/login
	// heading "Sign in" h1
	// textbox "Email" e1 required
	// checkbox "Remember me" e2 checked
	// button "Sign in" e3
}
