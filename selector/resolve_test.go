package selector

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

func TestResolve(t *testing.T) {
	snaps := fixture()
	for _, tt := range []struct{ sel, ref, tab string }{
		{`role:button name:"Sign in"`, "e8", "Acme login"},
		{`e41`, "e41", "Docs"},
		{`@e41`, "e41", "Docs"},
		{`role:checkbox`, "e7", "Acme login"},
		{`role:button name:Delete nth:2`, "e27", "Acme login"},
		{`role:row name~:grace >> role:button`, "e27", "Acme login"},
		{`window:"Save File" >> role:textbox name:Name`, "e55", "Desktop"},
		{`window:"Save File"`, "e54", "Desktop"},
		{`app:gedit`, "e50", "Desktop"},
		{`tab:2 >> role:link`, "e40", "Docs"},
		{`url:docs role:link`, "e40", "Docs"},
		{`role:searchbox || role:checkbox name:Nope`, "e41", "Docs"},
		// text: keeps the innermost match: the link, not its list.
		{`text:banana`, "e11", "Acme login"},
		{`role:dialog >> text:"Delete" role:button`, "e33", "Acme login"},
		{`text:"Read the"`, "", ""}, // only the paragraph, which has no ref
		{`text:terms`, "e43", "Docs"},
		{`name:Save role:button !window~:gedit`, "e56", "Desktop"},
	} {
		sel := MustParse(tt.sel)
		node, snap, err := Resolve(snaps, sel)
		if tt.ref == "" {
			if err == nil {
				t.Errorf("Resolve(%s) = %s, want an error", tt.sel, describe(node))
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%s): %v", tt.sel, err)
			continue
		}
		if node.Ref != tt.ref || snap.Header.Title != tt.tab {
			t.Errorf("Resolve(%s) = %s in %q, want %s in %q", tt.sel, node.Ref, snap.Header.Title, tt.ref, tt.tab)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	snaps := fixture()
	big := bigList(14)
	for _, tt := range []struct {
		snaps []*tree.Snapshot
		sel   string
		want  string
	}{
		{snaps[:1], `role:button name:"Sign on"`,
			`no element matches role:button name:"Sign on"; closest: button "Sign in" e8, link "Sign up" e3`},
		{snaps, `role:button name~:delete`,
			`4 elements match role:button name~:delete (add nth: or use a ref): button "Delete" e24 in row "1 | Ada | Edit", button "Delete" e27 in row "2 | Grace Hopper | Edit", button "Delete" e33 in alertdialog "Really?", button "Delete all" e42`},
		{snaps, `role:button name:Delete`,
			`3 elements match role:button name:Delete (add nth: or use a ref): button "Delete" e24 in row "1 | Ada | Edit", button "Delete" e27 in row "2 | Grace Hopper | Edit", button "Delete" e33 in alertdialog "Really?"`},
		{big, `role:link`,
			`14 elements match role:link (add nth: or use a ref): link "Item 1" e1, link "Item 2" e2, link "Item 3" e3, link "Item 4" e4, link "Item 5" e5, link "Item 6" e6, link "Item 7" e7, link "Item 8" e8, link "Item 9" e9, link "Item 10" e10, … 4 more`},
		{snaps, `e999`,
			`no element has ref e999 (it may be gone: take a new snapshot)`},
		{snaps, `@e999`,
			`no element has ref e999 (it may be gone: take a new snapshot)`},
		// A name close to nothing: the nodes of the wanted role instead.
		{snaps[1:2], `role:button name:Submit`,
			`no element matches role:button name:Submit; closest: button "Delete all" e42`},
		// Names across roles, and the role breaks ties.
		{snaps[:1], `role:link name:Cancle`,
			`no element matches role:link name:Cancle; closest: button "Cancel" e9 disabled, button "Cancel" e34 in alertdialog "Really?", button "Cancel" e35 in dialog "Confirm delete"`},
		{snaps, `role:textbox name:"E-mail"`,
			`no element matches role:textbox name:E-mail; closest: textbox "Email" e5 focused value="ada@acme.test"`},
		{snaps[:1], `role:textbox value:ada@acme.tst`,
			`no element matches role:textbox value:ada@acme.tst; closest: textbox "Email" e5 focused value="ada@acme.test"`},
		// Nothing to compare with: no closest.
		{snaps, `state:mixed`, `no element matches state:mixed`},
		{snaps, `role:button name:/^Zz/`,
			`no element matches role:button name:/^Zz/; closest: button "Sign in" e8, button "Cancel" e9 disabled, button "Delete" e24 in row "1 | Ada | Edit", button "Delete" e27 in row "2 | Grace Hopper | Edit", button "Delete" e33 in alertdialog "Really?"`},
		{nil, `role:button`, `no element matches role:button`},
		// Static text has no ref: text: with no ref'd container fails.
		{snaps[1:2], `text:"Read the"`, `no element matches text:"Read the"`},
	} {
		_, _, err := Resolve(tt.snaps, MustParse(tt.sel))
		if err == nil {
			t.Errorf("Resolve(%s) succeeded, want %s", tt.sel, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Resolve(%s):\n got: %s\nwant: %s", tt.sel, err, tt.want)
		}
	}
}

func TestResolveErrorTypes(t *testing.T) {
	snaps := fixture()
	_, _, err := Resolve(snaps, MustParse("role:button name:Delete"))
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Matches) != 3 || amb.Selector != "role:button name:Delete" {
		t.Errorf("ambiguous: %#v", err)
	}
	_, _, err = Resolve(snaps[:1], MustParse(`role:button name:"Sign on"`))
	var none *NoMatchError
	if !errors.As(err, &none) || len(none.Closest) != 2 || none.Closest[0].Node.Ref != "e8" {
		t.Errorf("no match: %#v", err)
	}
}

func TestFind(t *testing.T) {
	snaps := fixture()
	for _, tt := range []struct{ sel, want string }{
		{`role:button name:Delete`, `e24 e27 e33`},
		{`text:cancel`, `e9 e34 e35 e57`},
		{`role:dialog >> text:cancel`, `e34 e35 e57`},
		{`text:apple`, `e10`},
		{`tab:2`, ``}, // a tab's root has no ref
		{`role:listitem`, ``},
		// Nested matches: only the innermost (e32, e54 and e60 hold others).
		{`name~:a`, `e1 e5 e6 e9 e11 e21 e22 e25 e34 e35 e41 e42 e52 e55 e56 e57 e61`},
	} {
		if got := describeAll(Find(snaps, MustParse(tt.sel))); got != tt.want {
			t.Errorf("Find(%s)\n got: %s\nwant: %s", tt.sel, got, tt.want)
		}
	}
}

// bigList is one tab holding a list of k links.
func bigList(k int) []*tree.Snapshot {
	list := n("list", "", "")
	for i := 1; i <= k; i++ {
		list.Children = append(list.Children, n("link", fmt.Sprintf("Item %d", i), fmt.Sprintf("e%d", i)))
	}
	return []*tree.Snapshot{{Header: tree.Header{Kind: "tab", Index: 1}, Root: n("document", "", "", list)}}
}

func TestSimilarity(t *testing.T) {
	for _, tt := range []struct {
		a, b   string
		lo, hi float64
	}{
		{"sign in", "sign in", 1, 1},
		{"sign in", "sign on", 0.8, 0.9},
		{"delete", "delete all", 0.8, 0.9},
		{"", "x", 0, 0},
		{"save", "cancel", 0, 0.4},
		{strings.Repeat("a", 500), strings.Repeat("a", 499) + "b", 0.99, 1},
	} {
		if s := similarity(tt.a, tt.b); s < tt.lo || s > tt.hi {
			t.Errorf("similarity(%q, %q) = %.3f, want in [%.2f, %.2f]", tt.a, tt.b, s, tt.lo, tt.hi)
		}
	}
}
