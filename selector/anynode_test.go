package selector

import (
	"errors"
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

// keyed is a node with an identity (a source key) but no ref: printed
// without one, targetable all the same.
func keyed(role, name, key string, kids ...*tree.Node) *tree.Node {
	return &tree.Node{Role: role, Name: name, Key: key, Children: kids}
}

// inbox is a page whose rows carry no refs: a heading, list items holding
// a sender and a subject, and a button per item.
func inbox() []*tree.Snapshot {
	item := func(k, sender, subject string) *tree.Node {
		return keyed("listitem", "", "li"+k,
			keyed("text", sender, "from"+k),
			keyed("text", subject, "subj"+k),
			&tree.Node{Role: "button", Name: "Archive", Ref: "e1" + k, Key: "b" + k})
	}
	return []*tree.Snapshot{{
		Header: tree.Header{Kind: "tab", Index: 1, Title: "Inbox", URL: "http://127.0.0.1/inbox"},
		Root: keyed("document", "Inbox", "doc",
			&tree.Node{Role: "heading", Name: "Sign in to Acme", Level: 1, Key: "h"},
			keyed("list", "", "ul",
				item("1", "Helena", "Turpis gravida"),
				item("2", "Marcus", "Velit"),
				item("3", "Helena", "Another one")),
			&tree.Node{Role: "text", Name: "merged, no identity"}),
	}}
}

func TestResolveAnyNode(t *testing.T) {
	snaps := inbox()
	for _, tt := range []struct{ sel, key string }{
		{`role:heading name:"Sign in to Acme"`, "h"},
		{`text:Marcus`, "from2"},            // the innermost: the text, not its item or list
		{`text:Velit`, "subj2"},             // likewise
		{`role:listitem text:Velit`, "li2"}, // a role picks the item itself
	} {
		resolvesTo(t, snaps, tt.sel, tt.key)
	}
	// A node without an identity cannot be acted on.
	if _, _, err := Resolve(snaps, MustParse(`text:"merged, no identity"`)); err == nil {
		t.Error("a node without a key resolved")
	}
}

// A checkbox named by the text beside it (tree.Node.Borrowed) is found by
// name:, and text: finds the text itself, not the checkbox too.
func TestBorrowedNameIsNotText(t *testing.T) {
	snaps := []*tree.Snapshot{{
		Header: tree.Header{Kind: "tab", Index: 1, Title: "Todos"},
		Root: keyed("document", "Todos", "doc",
			keyed("listitem", "", "li",
				&tree.Node{Role: "checkbox", Name: "Buy milk", Ref: "e1", Key: "cb", Borrowed: true},
				keyed("text", "Buy milk", "label"))),
	}}
	for _, tt := range []struct{ sel, key string }{
		{`text:"Buy milk"`, "label"},
		{`role:checkbox name:"Buy milk"`, "cb"},
		{`role:listitem text:"Buy milk"`, "li"},
	} {
		resolvesTo(t, snaps, tt.sel, tt.key)
	}
}

func TestAmbiguousContext(t *testing.T) {
	snaps := inbox()
	_, _, err := Resolve(snaps, MustParse(`role:button name:Archive`))
	var amb *AmbiguousError
	if !errors.As(err, &amb) {
		t.Fatalf("want an AmbiguousError, got %v", err)
	}
	want := `3 elements match role:button name:Archive (add nth: or use a ref): ` +
		`button "Archive" e11 in listitem "Helena", button "Archive" e12 in listitem "Marcus", button "Archive" e13 in listitem "Helena"`
	if err.Error() != want {
		t.Errorf("got:  %s\nwant: %s", err, want)
	}
	// Hits that print differently need no context.
	hits := FindHits(snaps, MustParse(`text:Helena`))
	if len(hits) != 2 {
		t.Fatalf("text:Helena: %d hits, want 2", len(hits))
	}
	for _, h := range hits {
		if h.Context != "listitem \"Turpis gravida\"" && h.Context != "listitem \"Another one\"" {
			t.Errorf("hit %s has context %q, want its item's other text", tree.Line(h.Node), h.Context)
		}
	}
	if hits := FindHits(snaps, MustParse(`text:Marcus`)); len(hits) != 1 || hits[0].Context != "" {
		t.Errorf("a unique hit got a context: %+v", hits)
	}
}

// resolvesTo checks that sel resolves, strictly, to the node with key.
func resolvesTo(t *testing.T, snaps []*tree.Snapshot, sel, key string) {
	t.Helper()
	got, _, err := Resolve(snaps, MustParse(sel))
	if err != nil {
		t.Errorf("Resolve(%s): %v", sel, err)
		return
	}
	if got.Key != key {
		t.Errorf("Resolve(%s) = %s (key %q), want key %q", sel, tree.Line(got), got.Key, key)
	}
}
