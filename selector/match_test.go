package selector

import (
	"fmt"
	"slices"
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

// Every key, alone and inside &&, ||, !, parentheses and >>. Nodes print as
// their ref, or as [their tree line] when they have none.
var matchCases = []struct{ sel, want string }{
	// role:
	{`role:button`, `e8 e9 e24 e27 e33 e34 e35 e42 e52 e56 e57 e62`},
	{`role:link && name:Home`, `e2 e40`},
	{`role:link || role:checkbox`, `e2 e3 e7 e11 e23 e26 e40`},
	{`role:row >> !role:link`, `[columnheader "ID"] [columnheader "Name"] [columnheader "Action"] e24 e27`},
	{`(role:checkbox)`, `e7`},
	{`role:dialog >> role:button`, `e33 e34 e35 e56 e57`},
	{`role:alertdialog >> role:button`, `e33 e34`},
	{`role:Edit`, `e5 e6 e53 e55`},
	{`role:text`, `e5 e6 ["Apple pie"] ["Cherry"] ["Delete this user?"] ["Read the"] ["first."] e53 e55`},
	{`role:statictext tab:2`, `["Read the"] ["first."]`},
	{`role:/box$/`, `e5 e6 e7 e41 e53 e55`},
	{`role:application`, `e50 e60`},

	// name:
	{`name:"sign  IN"`, `[heading "Sign in" h1] e8`},
	{`name~:sign`, `e3 [heading "Sign in" h1] e8`},
	{`name:/^Sign (in|up)$/`, `e3 [heading "Sign in" h1] e8`},
	{`name:/^sign/`, ``},
	{`name:/^sign/i`, `e3 [heading "Sign in" h1] e8`},
	{`name:Save`, `e52 e56`},
	{`name:Edit role:link`, `e23 e26`},
	{`name:Edit || name:Home`, `e2 e23 e26 e40`},
	{`role:button !name:Cancel !name:Delete`, `e8 e42 e52 e56 e62`},
	{`role:row name~:ada >> role:link name:Edit`, `e23`},
	{`(name:Home)`, `e2 e40`},

	// text:
	{`text:"Apple"`, `[main] e10 [listitem] ["Apple pie"]`},
	{`text:banana`, `[main] e10 [listitem] e11`},
	{`role:listitem text:cherry`, `[listitem]`},
	{`text:"Read the terms"`, `[paragraph]`},
	{`text:hunter2`, ``},
	{`text:ada@acme`, `[main] e4 e5`},
	{`role:row text:grace`, `e25`},
	{`text:/grace\s+hopper/i`, `[main] e20 e25`},
	{`role:button !text:e`, `e8 e62`},
	{`role:dialog >> text:cancel`, `e31 e32 e34 e35 e57`},
	{`(text:cherry)`, `[main] e10 [listitem] ["Cherry"]`},
	{`text:cherry || text:banana`, `[main] e10 [listitem] e11 [listitem] ["Cherry"]`},

	// value:
	{`value:ada@acme.test`, `e5`},
	{`value~:ACME`, `e5`},
	{`value:hunter2`, ``},
	{`value~:hunter`, ``},
	{`value:/^ada/`, `e5`},
	{`role:textbox !value~:ada`, `e6 e53 e55`},
	{`role:form >> value~:acme`, `e5`},
	{`value:ada@acme.test || value:x`, `e5`},
	{`(value~:ada)`, `e5`},

	// id:
	{`id:submit`, `e8`},
	{`id:SUBMIT`, `e8`},
	{`id~:ai`, `e5`},
	{`id:/^e/`, `e5`},
	{`role:textbox && id:pw`, `e6`},
	{`id:pw || id:email`, `e5 e6`},
	{`role:textbox !id:pw`, `e5 e53 e55`},
	{`role:form >> id:pw`, `e6`},
	{`(id:pw)`, `e6`},

	// state:
	{`state:checked`, `e7`},
	{`state:disabled`, `e9`},
	{`tab:1 role:button !state:disabled`, `e8 e24 e27 e33 e34 e35`},
	{`tab:1 role:button state:enabled`, `e8 e24 e27 e33 e34 e35`},
	{`role:checkbox state:unchecked`, ``},
	{`state:focused || state:required`, `e5 e6`},
	{`role:form >> state:protected`, `e6`},
	{`(state:modal)`, `e30`},

	// window: alone names the window; with other keys, what is inside.
	{`window:"Save File"`, `e54`},
	{`window:"Save File" >> role:textbox name:Name`, `e55`},
	{`window:"save file" role:button`, `e56 e57`},
	{`window~:gedit`, `e51`},
	{`role:button window~:gedit`, `e52`},
	{`role:button !window:Calculator`, `e8 e9 e24 e27 e33 e34 e35 e42 e52 e56 e57`},
	{`window:/^Confirm/`, `e30`},
	{`window:Really?`, `e32`},
	{`window:"Confirm delete" >> role:button`, `e33 e34 e35`},
	{`window:Calculator || window:"Save File"`, `e54 e61`},
	{`(window:Calculator)`, `e61`},
	{`role:dialog >> window:Really?`, `e32`},

	// app:
	{`app:gedit`, `e50`},
	{`app:gedit window:"Save File"`, `e54`},
	{`app:gedit role:button`, `e52 e56 e57`},
	{`app~:calc >> role:button`, `e62`},
	{`role:button !app:gedit`, `e8 e9 e24 e27 e33 e34 e35 e42 e62`},
	{`app:gedit || app:Calculator`, `e50 e60`},
	{`(app:Calculator) >> name:1`, `e62`},

	// tab: alone names the tab's root; with other keys, what is in the tab.
	{`tab:2`, `[document "Docs"]`},
	{`tab:2 >> role:link`, `e40`},
	{`tab:Docs >> role:button`, `e42`},
	{`tab~:login role:link`, `e2 e3 e11 e23 e26`},
	{`role:link !tab:1`, `e40`},
	{`tab:1 || tab:2`, `[document "Acme login"] [document "Docs"]`},
	{`(tab:2) >> role:searchbox`, `e41`},
	{`tab:/^acme/i >> role:checkbox`, `e7`},
	{`tab:3`, ``},
	{`role:dialog >> tab:1`, ``},

	// url:
	{`url:login >> role:button name:Cancel`, `e9 e34 e35`},
	{`url:*docs.acme.test/*`, `[document "Docs"]`},
	{`url:"docs.acme.test/guide*"`, `[document "Docs"]`},
	{`url:/guide\?x=1$/`, `[document "Docs"]`},
	{`url:/login`, `[document "Acme login"]`},
	{`url~:DOCS role:link`, `e40`},
	{`role:link !url:docs`, `e2 e3 e11 e23 e26`},
	{`url:acme tab:2`, `[document "Docs"]`},
	{`url:acme`, `[document "Acme login"] [document "Docs"]`},
	{`(url:docs) >> role:link || role:button`, `e40 e42`},

	// nth:
	{`role:button nth:1`, `e8`},
	{`role:button nth:-1`, `e62`},
	{`role:button nth:100`, ``},
	{`role:button nth:-100`, ``},
	{`nth:1`, `e1`},
	{`(role:link || role:checkbox) nth:2`, `e3`},
	{`role:row >> role:link nth:2`, `e26`},
	{`role:row nth:2 >> role:button`, `e24`},
	{`role:link !nth:2 nth:1`, `e3`},
	{`role:button nth:2 || role:link nth:-1`, `e9 e40`},
	{`role:button name:Delete nth:3`, `e33`},
	{`role:button nth:2 nth:1`, `e9`},
	{`role:button && nth:2`, `e9`},
	{`(nth:1)`, `e1`},
	{`(role:button nth:-1)`, `e62`},
	{`role:form >> nth:1`, `e5`},
	{`role:form >> !nth:1 nth:1`, `e6`},

	// refs:
	{`e8`, `e8`},
	{`@e8`, `e8`},
	{`e8 || e9`, `e8 e9`},
	{`role:form >> e8`, `e8`},
	{`e8 role:link`, ``},
	{`(e9)`, `e9`},
	{`role:button !e9 name:Cancel`, `e34 e35 e57`},
	{`e4 >> role:button`, `e8 e9`},
	{`e999`, ``},

	// Precedence: ! over AND over OR over >>.
	{`role:link || role:button name:Delete`, `e2 e3 e11 e23 e24 e26 e27 e33 e40`},
	{`(role:link || role:button) name:Delete`, `e24 e27 e33`},
	{`role:table >> role:row >> role:link`, `e23 e26`},
	{`!role:button !role:link tab:2`, `e41 [paragraph] ["Read the"] e43 ["first."]`},
}

func TestMatch(t *testing.T) {
	snaps := fixture()
	for _, tt := range matchCases {
		sel, err := Parse(tt.sel)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.sel, err)
			continue
		}
		if got := describeAll(Match(snaps, sel)); got != tt.want {
			t.Errorf("%s\n got: %s\nwant: %s", tt.sel, got, tt.want)
		}
	}
}

// atomsForAlgebra covers every key (and ref) with values that match some of
// the fixture, so that the set identities below are not vacuous.
var atomsForAlgebra = []string{
	`role:button`, `role:text`, `role:/link/`,
	`name:Delete`, `name~:sign`, `name:/^E/`,
	`text:cancel`, `text:/ada/i`,
	`value~:acme`, `value:/./`,
	`id:pw`, `id~:e`,
	`state:disabled`, `state:enabled`,
	`window~:save`, `app:gedit`, `tab:1`, `url~:docs`,
	`e8`, `e24`,
}

// TestMatchAlgebra checks, for every pair of atoms, that the combinators are
// the set operations they claim to be, so that no key is silently ignored
// inside any of them. A lone scope atom names the scope itself, so it is
// compared through a neutral conj (`x !e0`) that makes it an ordinary member
// test; nth: is positional and has its own cases above.
func TestMatchAlgebra(t *testing.T) {
	snaps := fixture()
	ix := newIndex(snaps)
	var all []*tree.Node
	for i, x := range ix.nodes {
		if !ix.isRoot[i] {
			all = append(all, x)
		}
	}
	match := func(s string) []*tree.Node { return Match(snaps, MustParse(s)) }
	member := func(a string) string { return a + " !e0" }
	for _, a := range atomsForAlgebra {
		A := match(member(a))
		if len(A) == 0 {
			t.Errorf("%s matches nothing in the fixture", a)
		}
		check := func(sel string, want []*tree.Node) {
			t.Helper()
			if got := match(sel); !slices.Equal(got, want) {
				t.Errorf("%s\n got: %s\nwant: %s", sel, describeAll(got), describeAll(want))
			}
		}
		check(`!`+a, minusNodes(all, A))
		check(`!!`+a+` !e0`, A)
		check(`(`+member(a)+`)`, A)
		for _, b := range atomsForAlgebra {
			B := match(member(b))
			check(member(a+` `+b), intersectNodes(A, B))
			check(member(a+` && `+b), intersectNodes(A, B))
			check(`(`+member(a)+`) && (`+member(b)+`)`, intersectNodes(A, B))
			check(member(a)+` || `+member(b), unionNodes(all, A, B))
			check(member(a)+`, `+member(b), unionNodes(all, A, B))
			check(a+` !`+b, minusNodes(A, B))
			check(`!(`+member(a)+` || `+member(b)+`)`, minusNodes(all, unionNodes(all, A, B)))
			// B over the descendants of A.
			check(member(a)+` >> `+member(b), intersectNodes(B, descendantsOf(A)))
			check(`(`+member(a)+` >> `+member(b)+`)`, intersectNodes(B, descendantsOf(A)))
		}
	}
}

func intersectNodes(a, b []*tree.Node) []*tree.Node {
	var out []*tree.Node
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func minusNodes(a, b []*tree.Node) []*tree.Node {
	var out []*tree.Node
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// unionNodes returns the nodes of a or b in the order of all.
func unionNodes(all, a, b []*tree.Node) []*tree.Node {
	var out []*tree.Node
	for _, x := range all {
		if slices.Contains(a, x) || slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// descendantsOf returns the strict descendants of ns (possibly repeated).
func descendantsOf(ns []*tree.Node) []*tree.Node {
	var out []*tree.Node
	for _, x := range ns {
		for _, c := range x.Children {
			tree.Walk(c, func(d *tree.Node) bool { out = append(out, d); return true })
		}
	}
	return out
}

func TestMatchNilAndEmpty(t *testing.T) {
	sel := MustParse("role:button")
	if got := Match(nil, sel); len(got) != 0 {
		t.Errorf("Match(nil) = %v", describeAll(got))
	}
	snaps := []*tree.Snapshot{nil, {Header: tree.Header{Kind: "tab"}}, fixture()[1]}
	if got := describeAll(Match(snaps, sel)); got != "e42" {
		t.Errorf("Match with nil snapshots = %s, want e42", got)
	}
}

// TestMatchLarge checks that a wide, deep page matches in reasonable time:
// text: is computed once per node, and sets are merged, not rescanned.
func TestMatchLarge(t *testing.T) {
	root := n("document", "Big", "")
	parent := root
	for d := 0; d < 50; d++ { // a deep spine
		g := n("group", fmt.Sprintf("level %d", d), "")
		parent.Children = append(parent.Children, g)
		parent = g
	}
	for i := 0; i < 20000; i++ {
		parent.Children = append(parent.Children, n("link", fmt.Sprintf("Item %d", i), fmt.Sprintf("e%d", i+1)))
	}
	snaps := []*tree.Snapshot{{Header: tree.Header{Kind: "tab", Index: 1}, Root: root}}
	got := Match(snaps, MustParse(`text:"item 19999" role:link || !role:group text:"item 5" nth:-1`))
	if describeAll(got) != "e6000 e20000" {
		t.Errorf("got %s", describeAll(got))
	}
}

// TestMatchGraftedPage: a tab's page grafted into the desktop's tree (the
// workspace) keeps its tab's header, so tab: and url: scope inside it as
// they do in the tab's own snapshot, and nothing outside it matches them.
func TestMatchGraftedPage(t *testing.T) {
	page := &tree.Header{Kind: "tab", Index: 1, Title: "Reports", URL: "http://127.0.0.1:8080/reports"}
	doc := n("document", "Reports", "e3",
		n("link", "Download report", "e4"),
		n("button", "Save", "e5"))
	doc.Page = page
	desk := &tree.Snapshot{Header: tree.Header{Kind: "desktop", Title: ":0"}, Root: n("desktop", ":0", "",
		n("application", "Chromium", "e1",
			n("window", "Reports - Chromium", "e2", doc),
			n("dialog", "Save File", "e6", n("button", "Save", "e7"))))}
	for _, tt := range []struct{ sel, want string }{
		{`tab:1 >> role:button`, `e5`},
		{`url~:reports >> role:link`, `e4`},
		{`tab:Reports`, `e3`},
		{`role:button name:Save`, `e5 e7`},
		{`role:button name:Save !tab:1`, `e7`},
		{`window:"Save File" >> role:button`, `e7`},
		{`tab:2 >> role:button`, ``},
	} {
		sel, err := Parse(tt.sel)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.sel, err)
		}
		if got := describeAll(Match([]*tree.Snapshot{desk}, sel)); got != tt.want {
			t.Errorf("%s\n got: %s\nwant: %s", tt.sel, got, tt.want)
		}
	}
}
