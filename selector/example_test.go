package selector_test

import (
	"fmt"

	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/tree"
)

func Example() {
	page := &tree.Snapshot{
		Header: tree.Header{Kind: "tab", Index: 1, Title: "Acme login", URL: "https://acme.test/login"},
		Root: &tree.Node{Role: "document", Children: []*tree.Node{
			{Role: "form", Name: "Login", Ref: "e4", Children: []*tree.Node{
				{Role: "textbox", Name: "Email", Ref: "e5"},
				{Role: "button", Name: "Sign in", Ref: "e12"},
			}},
			{Role: "link", Name: "Sign up", Ref: "e14"},
		}},
	}
	snaps := []*tree.Snapshot{page}

	sel, err := selector.Parse(`role:form >> role:Button name:"sign in"`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel) // the canonical form
	node, _, err := selector.Resolve(snaps, sel)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tree.Line(node))

	// A near miss names the closest candidates.
	_, _, err = selector.Resolve(snaps, selector.MustParse(`role:button name:"Sign on"`))
	fmt.Println(err)

	// A syntax error points at its column.
	_, err = selector.Parse(`role:button name:`)
	fmt.Println(err)
	fmt.Println(err.(*selector.SyntaxError).Caret())
	// Output:
	// role:form >> role:button name:"sign in"
	// button "Sign in" e12
	// no element matches role:button name:"Sign on"; closest: button "Sign in" e12, link "Sign up" e14
	// selector column 18: expected a value after "name:"
	// role:button name:
	//                  ^
}
