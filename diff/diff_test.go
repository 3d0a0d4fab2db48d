package diff_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/diff"
	"github.com/canopy-dev/canopy/internal/goldentest"
	"github.com/canopy-dev/canopy/tree"
)

// el builds a node; kids follow.
func el(role, name, ref string, kids ...*tree.Node) *tree.Node {
	return &tree.Node{Role: role, Name: name, Ref: ref, Children: kids}
}

func text(s string) *tree.Node { return el(tree.RoleText, s, "") }

func with(n *tree.Node, f func(*tree.Node)) *tree.Node { f(n); return n }

func snap(root *tree.Node) *tree.Snapshot {
	return &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: root.Name}, Root: root}
}

// clone deep-copies a tree, so a test can edit the after tree freely.
func clone(n *tree.Node) *tree.Node {
	c := *n
	if n.Bounds != nil {
		b := *n.Bounds
		c.Bounds = &b
	}
	c.Children = nil
	for _, k := range n.Children {
		c.Children = append(c.Children, clone(k))
	}
	return &c
}

// find returns the node with ref, or the first node named name.
func find(root *tree.Node, refOrName string) *tree.Node {
	if n := tree.FindRef(root, refOrName); n != nil {
		return n
	}
	var found *tree.Node
	tree.Walk(root, func(n *tree.Node) bool {
		if found == nil && n.Name == refOrName {
			found = n
		}
		return found == nil
	})
	if found == nil {
		panic("no node " + refOrName)
	}
	return found
}

// parentOf returns the parent of n under root.
func parentOf(root, n *tree.Node) *tree.Node {
	var p *tree.Node
	tree.Walk(root, func(x *tree.Node) bool {
		for _, c := range x.Children {
			if c == n {
				p = x
			}
		}
		return p == nil
	})
	return p
}

func remove(root *tree.Node, refOrName string) *tree.Node {
	n := find(root, refOrName)
	p := parentOf(root, n)
	for i, c := range p.Children {
		if c == n {
			p.Children = append(p.Children[:i:i], p.Children[i+1:]...)
		}
	}
	return n
}

// loginPage is a small page with something of every kind.
func loginPage() *tree.Node {
	return el(tree.RoleDocument, "Acme login", "",
		el("banner", "", "e1", el("link", "Home", "e2")),
		el("main", "", "e3",
			with(el("heading", "Sign in", ""), func(n *tree.Node) { n.Level = 1 }),
			text("Use your work account."),
			el("form", "Login", "e10",
				with(el("textbox", "Email", "e13"), func(n *tree.Node) { n.States = tree.Required }),
				with(el("textbox", "Password", "e14"), func(n *tree.Node) { n.States = tree.Required | tree.Protected }),
				with(el("checkbox", "Remember me", "e16"), func(n *tree.Node) { n.States = tree.Checked }),
				el("button", "Sign in", "e17"),
			),
			el("list", "Tasks", "e5",
				el("listitem", "", "", el("checkbox", "Buy milk", "e20"), text("due today")),
				el("listitem", "", "", el("checkbox", "Call Bob", "e21"), text("due Friday")),
			),
			el("status", "", "", text("Saving…")),
		),
	)
}

// todos is a list of unnamed items, each a checkbox named by the text beside
// it and that text (TodoMVC's), and a breadcrumb of clickable generics.
func todos() *tree.Node {
	item := func(ref, text string) *tree.Node {
		cb := el("checkbox", text, ref)
		cb.Borrowed = true
		return el("listitem", "", "", cb, el(tree.RoleText, text, ""))
	}
	crumb := func(ref, name string) *tree.Node {
		return with(el("generic", name, ref), func(n *tree.Node) { n.States = tree.Clickable })
	}
	return el(tree.RoleDocument, "Todos", "",
		el("navigation", "", "e1", crumb("e2", "order"), crumb("e3", "customer")),
		el("list", "", "e5", item("e20", "Buy milk"), item("e21", "Walk the dog")),
	)
}

// rerender gives every ref under n a new number, as a page that rebuilds
// its DOM does.
func rerender(n *tree.Node) {
	tree.Walk(n, func(x *tree.Node) bool {
		if x.Ref != "" {
			k, _ := strconv.Atoi(x.Ref[1:])
			x.Ref = "e" + strconv.Itoa(k+100)
		}
		return true
	})
}

// table builds a page with a table of rows rows, each with a few cells.
func table(rows int) *tree.Node {
	t := el("table", "Users", "e1")
	for i := range rows {
		id := strconv.Itoa(i + 1)
		ref := 10 + 10*i
		t.Children = append(t.Children, el("row", "User "+id+" user"+id+"@example.com Active", "e"+strconv.Itoa(ref),
			el("cell", "User "+id, ""),
			el("cell", "user"+id+"@example.com", ""),
			el("cell", "Active", ""),
			el("link", "Edit", "e"+strconv.Itoa(ref+1)),
			with(el("checkbox", "Select", "e"+strconv.Itoa(ref+2)), func(n *tree.Node) {
				n.Bounds = &tree.Rect{X: 10, Y: float64(20 * i), W: 16, H: 16}
			}),
			el("generic", "", "", text("Created "+id+" days ago"), text("by admin")),
			el("cell", "", "", el("button", "Delete", "e"+strconv.Itoa(ref+3)), el("img", "trash", "")),
			el("cell", "note", "", text("n/a"), text("—")),
		))
	}
	return el(tree.RoleDocument, "Users", "", el("heading", "Users", ""), t)
}

// desktop is a desktop with a browser and an editor.
func desktop() *tree.Node {
	return el("desktop", ":0", "",
		el("application", "Chromium", "e9", el("window", "Report - Chromium", "e1", el("button", "Reload", "e2"))),
		el("application", "mousepad", "e11", el("window", "notes.txt - Mousepad", "e10", el("textbox", "", "e12"))))
}

type diffCase struct {
	name   string
	before *tree.Node
	edit   func(after *tree.Node) // edits a clone of before
	opt    diff.Options
}

func cases() []diffCase {
	return []diffCase{
		{name: "no_change", before: loginPage(), edit: func(*tree.Node) {}},
		{name: "checkbox_toggled", before: loginPage(), edit: func(a *tree.Node) {
			find(a, "e16").States = 0
		}},
		{name: "value_typed", before: loginPage(), edit: func(a *tree.Node) {
			find(a, "e13").Value = "a@b.c"
		}},
		{name: "protected_value", before: loginPage(), edit: func(a *tree.Node) {
			find(a, "e14").Value = "hunter2"
		}},
		{name: "dialog_opened", before: loginPage(), edit: func(a *tree.Node) {
			del := el("button", "Delete", "e41")
			del.States = tree.Focused
			d := el("dialog", "Confirm delete", "e40", text("This cannot be undone."), del, el("button", "Cancel", "e42"))
			d.States = tree.Modal
			a.Children = append(a.Children, d)
		}},
		{name: "dialog_closed", before: with(loginPage(), func(n *tree.Node) {
			n.Children = append(n.Children, el("dialog", "Confirm delete", "e40", el("button", "Delete", "e41")))
		}), edit: func(a *tree.Node) { remove(a, "e40") }},
		{name: "list_item_added", before: loginPage(), edit: func(a *tree.Node) {
			l := find(a, "e5")
			l.Children = append(l.Children, el("listitem", "", "", el("checkbox", "Pay rent", "e22")))
		}},
		{name: "list_item_removed", before: loginPage(), edit: func(a *tree.Node) {
			l := find(a, "e5")
			l.Children = l.Children[1:]
		}},
		// A filter on a list the page rebuilds: the item that went is
		// named by its text, and the one that stayed is the same item
		// under a new ref, not the first item renamed.
		{name: "items_filtered", before: todos(), edit: func(a *tree.Node) {
			l := find(a, "e5")
			l.Children = l.Children[1:]
			rerender(l.Children[0])
		}},
		// Another item in the same place is one removed and one added.
		{name: "item_replaced", before: todos(), edit: func(a *tree.Node) {
			l := find(a, "e5")
			cb := el("checkbox", "Feed the cat", "e30")
			cb.Borrowed = true
			l.Children = []*tree.Node{el("listitem", "", "", cb, text("Feed the cat"))}
		}},
		// An item edited in place keeps its checkbox: still that item, its
		// text changed.
		{name: "item_edited_in_place", before: todos(), edit: func(a *tree.Node) {
			li := find(a, "e5").Children[0]
			li.Children[0].Name, li.Children[1].Name = "Buy oat milk", "Buy oat milk"
		}},
		// A breadcrumb redrawn: what prints the same is one line with its
		// new ref; what changed is removed and added.
		{name: "rerendered", before: todos(), edit: func(a *tree.Node) {
			nav := find(a, "e1")
			for _, c := range nav.Children {
				rerender(c)
			}
			nav.Children[1].Name = "status"
		}},
		{name: "status_text", before: loginPage(), edit: func(a *tree.Node) {
			find(a, "Saving…").Name = "Saved"
		}},
		{name: "heading_text", before: loginPage(), edit: func(a *tree.Node) {
			find(a, "Sign in").Name = "Welcome back"
		}},
		{name: "moved", before: loginPage(), edit: func(a *tree.Node) {
			b := remove(a, "e17")
			find(a, "e1").Children = append(find(a, "e1").Children, b)
		}},
		{name: "reorder", before: loginPage(), edit: func(a *tree.Node) {
			f := find(a, "e10")
			f.Children[0], f.Children[2] = f.Children[2], f.Children[0]
		}},
		{name: "focus_moved", before: with(loginPage(), func(n *tree.Node) { find(n, "e13").States |= tree.Focused }),
			edit: func(a *tree.Node) {
				find(a, "e13").States &^= tree.Focused
				find(a, "e14").States |= tree.Focused
			}},
		{name: "focus_left", before: with(loginPage(), func(n *tree.Node) { find(n, "e13").States |= tree.Focused }),
			edit: func(a *tree.Node) { find(a, "e13").States &^= tree.Focused }},
		{name: "expanded", before: with(loginPage(), func(n *tree.Node) {
			find(n, "e1").Children = append(find(n, "e1").Children, with(el("button", "Menu", "e7"), func(m *tree.Node) { m.States = tree.Collapsed }))
		}), edit: func(a *tree.Node) {
			find(a, "e7").States = tree.Expanded
		}},
		{name: "volatile_only", before: table(20), edit: func(a *tree.Node) {
			tree.Walk(a, func(n *tree.Node) bool {
				n.Key = "other-" + n.Name
				n.ID = "x"
				n.Bounds = &tree.Rect{X: 1, Y: 2, W: 3, H: 4}
				return true
			})
		}},
		// The desktop: a portal draws the browser's Save dialog, the
		// editor opens with its window, and the browser's own window
		// opens a dialog of its own.
		{name: "desktop_windows", before: desktop(), edit: func(a *tree.Node) {
			portal := el("application", "xdg-desktop-portal-gtk", "e21", el("dialog", "All Files", "e22", el("button", "Save", "e23")))
			find(a, "e1").Children = append(find(a, "e1").Children, el("window", "", "e30", text("127.0.0.1/report.txt")))
			a.Children = append(a.Children, portal)
			remove(a, "e10")
		}},
		{name: "table_row_edited", before: table(1000), edit: func(a *tree.Node) {
			row := find(a, "e5000")
			row.Name = "User 500 user500@example.com Suspended"
			row.Children[2].Name = "Suspended"
		}},
		{name: "rows_appended", before: table(10), edit: func(a *tree.Node) {
			more := table(40).Children[1].Children[10:]
			find(a, "e1").Children = append(find(a, "e1").Children, more...)
		}, opt: diff.Options{Budget: 400}},
		{name: "over_budget", before: table(30), edit: func(a *tree.Node) {
			for i := range 30 {
				find(a, "e"+strconv.Itoa(12+10*i)).States = tree.Checked
			}
		}, opt: diff.Options{Budget: 150}},
		{name: "moved_to_top", before: loginPage(), edit: func(a *tree.Node) {
			a.Children = append(a.Children, remove(a, "e17"))
		}},
		{name: "heading_level_and_title", before: loginPage(), edit: func(a *tree.Node) {
			find(a, "Sign in").Level = 2
			a.Name = "Acme – sign in"
		}},
		{name: "renamed_and_disabled", before: loginPage(), edit: func(a *tree.Node) {
			b := find(a, "e17")
			b.Name, b.States = "Signing in…", tree.Disabled|tree.Busy
		}},
		{name: "mixed", before: loginPage(), edit: func(a *tree.Node) {
			find(a, "e16").States = 0
			find(a, "e13").Value = "a@b.c"
			remove(a, "e2")
			find(a, "Saving…").Name = "Saved"
			find(a, "e10").Children = append(find(a, "e10").Children, text("Wrong password"))
			a.Children = append(a.Children, el("dialog", "Confirm delete", "e40", el("button", "Delete", "e41")))
		}},
	}
}

func (c diffCase) run() diff.Diff {
	after := clone(c.before)
	c.edit(after)
	return diff.Compute(snap(c.before), snap(after))
}

// golden compares got with testdata/name.golden, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	goldentest.Check(t, path, got)
}

func TestGolden(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			golden(t, c.name, c.run().Format(c.opt))
		})
	}
}

// TestLines pins the exact lines of docs/diffs.md and the token limits.
func TestLines(t *testing.T) {
	tests := []struct {
		name      string
		want      []string // lines that must appear
		maxTokens int      // 0: no limit
	}{
		{"no_change", []string{"no change"}, 3},
		{"checkbox_toggled", []string{`~ checkbox "Remember me" e16: checked → not checked`}, 0},
		{"value_typed", []string{`~ textbox "Email" e13: value "" → "a@b.c"`}, 0},
		{"protected_value", []string{`~ textbox "Password" e14: value changed`}, 0},
		{"dialog_opened", []string{`opened dialog "Confirm delete" e40`, `  button "Delete" e41 focused`}, 45},
		{"dialog_closed", []string{`closed dialog "Confirm delete" e40`}, 0},
		{"list_item_added", []string{`+ listitem (in e5)`, `+   checkbox "Pay rent" e22`}, 30},
		{"status_text", []string{`~ "Saving…" → "Saved" (in e3)`}, 0},
		{"heading_text", []string{`~ heading "Sign in" → "Welcome back" (in e3)`}, 0},
		{"moved", []string{`> button "Sign in" e17 moved to e1`}, 0},
		{"reorder", []string{`~ form "Login" e10: order changed`}, 0},
		{"focus_moved", []string{`focus → textbox "Password" e14`}, 0},
		{"focus_left", []string{`focus left textbox "Email" e13`}, 0},
		{"expanded", []string{`~ button "Menu" e7: collapsed → expanded`}, 0},
		{"volatile_only", []string{"no change"}, 0},
		{"table_row_edited", []string{`~ cell "Active" → "Suspended" (in e5000)`}, 60},
		{"desktop_windows", []string{`opened dialog "All Files" (xdg-desktop-portal-gtk) e22`,
			`opened window e30`, `closed window "notes.txt - Mousepad" (mousepad) e10`}, 0},
	}
	byName := map[string]diffCase{}
	for _, c := range cases() {
		byName[c.name] = c
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := byName[tt.name]
			if !ok {
				t.Fatalf("no case %s", tt.name)
			}
			got := c.run().Format(c.opt)
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			for _, w := range tt.want {
				if !contains(lines, w) {
					t.Errorf("missing line %q in:\n%s", w, got)
				}
			}
			if n := tree.EstimateTokens(got); tt.maxTokens > 0 && n > tt.maxTokens {
				t.Errorf("%d tokens, want ≤ %d:\n%s", n, tt.maxTokens, got)
			}
		})
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}
