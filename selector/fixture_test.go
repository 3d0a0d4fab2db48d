package selector

import (
	"strings"

	"github.com/canopy-dev/canopy/tree"
)

// n builds a node: role, name, ref, then children.
func n(role, name, ref string, kids ...*tree.Node) *tree.Node {
	return &tree.Node{Role: role, Name: name, Ref: ref, Children: kids}
}

// with applies changes to a node and returns it.
func with(x *tree.Node, f func(*tree.Node)) *tree.Node { f(x); return x }

func st(s tree.State, x *tree.Node) *tree.Node { x.States |= s; return x }

// fixture returns three snapshots: a login page in tab 1, a docs page in
// tab 2, and a desktop with two apps. Refs are unique across them.
func fixture() []*tree.Snapshot {
	login := &tree.Snapshot{
		Header: tree.Header{Kind: "tab", Index: 1, Title: "Acme login", URL: "https://acme.test/login"},
		Root: n("document", "Acme login", "",
			n("navigation", "Main", "e1",
				n("link", "Home", "e2"),
				n("link", "Sign up", "e3")),
			n("main", "", "",
				with(n("heading", "Sign in", ""), func(x *tree.Node) { x.Level = 1 }),
				n("form", "Login", "e4",
					with(st(tree.Focused, n("textbox", "Email", "e5")), func(x *tree.Node) { x.Value, x.ID = "ada@acme.test", "email" }),
					with(st(tree.Protected|tree.Required, n("textbox", "Password", "e6")), func(x *tree.Node) { x.Value, x.ID = "hunter2", "pw" }),
					st(tree.Checked, n("checkbox", "Remember me", "e7")),
					with(n("button", "Sign in", "e8"), func(x *tree.Node) { x.ID = "submit" }),
					st(tree.Disabled, n("button", "Cancel", "e9"))),
				n("list", "Fruit", "e10",
					n("listitem", "", "",
						n("text", "Apple pie", "")),
					n("listitem", "", "",
						n("link", "Banana", "e11")),
					n("listitem", "", "",
						n("text", "Cherry", ""))),
				n("table", "Users", "e20",
					n("row", "ID | Name | Action", "e21",
						n("columnheader", "ID", ""), n("columnheader", "Name", ""), n("columnheader", "Action", "")),
					n("row", "1 | Ada | Edit", "e22",
						n("link", "Edit", "e23"),
						n("button", "Delete", "e24")),
					n("row", "2 | Grace Hopper | Edit", "e25",
						n("link", "Edit", "e26"),
						n("button", "Delete", "e27"))),
				st(tree.Modal, n("dialog", "Confirm delete", "e30",
					n("text", "Delete this user?", ""),
					n("group", "Options", "e31",
						n("alertdialog", "Really?", "e32",
							n("button", "Delete", "e33"),
							n("button", "Cancel", "e34"))),
					n("button", "Cancel", "e35"))))),
	}
	docs := &tree.Snapshot{
		Header: tree.Header{Kind: "tab", Index: 2, Title: "Docs", URL: "https://docs.acme.test/guide?x=1"},
		Root: n("document", "Docs", "",
			n("link", "Home", "e40"),
			n("searchbox", "Search", "e41"),
			n("button", "Delete all", "e42"),
			n("paragraph", "", "",
				n("text", "Read the", ""),
				st(tree.Clickable, n("generic", "terms", "e43")),
				n("text", "first.", ""))),
	}
	desktop := &tree.Snapshot{
		Header: tree.Header{Kind: "desktop", Title: "Desktop"},
		Root: n("desktop", "Desktop", "",
			n("application", "gedit", "e50",
				n("window", "Untitled - gedit", "e51",
					n("button", "_Save", "e52"),
					n("textbox", "Body", "e53")),
				n("dialog", "Save File", "e54",
					n("textbox", "Name", "e55"),
					n("button", "_Save", "e56"),
					n("button", "Cancel", "e57"))),
			n("application", "Calculator", "e60",
				n("window", "Calculator", "e61",
					n("button", "1", "e62")))),
	}
	return []*tree.Snapshot{login, docs, desktop}
}

// describe names a node for test output: its ref, or its tree line.
func describe(x *tree.Node) string {
	if x.Ref != "" {
		return x.Ref
	}
	return "[" + tree.Line(x) + "]"
}

func describeAll(ns []*tree.Node) string {
	parts := make([]string, len(ns))
	for i, x := range ns {
		parts[i] = describe(x)
	}
	return strings.Join(parts, " ")
}
