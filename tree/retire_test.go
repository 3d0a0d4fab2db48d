package tree_test

import (
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

// docPage is a page of document key doc with buttons keyed k1…kn.
func docPage(doc string, keys ...string) *tree.Node {
	root := keyed(doc, el(tree.RoleDocument, doc))
	for _, k := range keys {
		root.Children = append(root.Children, keyed(k, el("button", k)))
	}
	return root
}

func TestRefsRetire(t *testing.T) {
	r := tree.NewRefs()
	login := docPage("login", "a", "b", "c", "d")
	r.Assign(login)
	r.Shown("button \"a\" e1\nbutton \"b\" e2 and e3") // the agent saw e1–e3, not e4
	r.Retire("login", "on /login, which was replaced")

	for _, ref := range []string{"e1", "e2", "e3"} {
		if where, ok := r.Gone(ref); !ok || where != "on /login, which was replaced" {
			t.Errorf("Gone(%s) = %q, %v; want the old page", ref, where, ok)
		}
	}
	if _, ok := r.Gone("e4"); ok {
		t.Error("e4 was never shown, yet it is remembered as gone")
	}
	// The next page numbers on from the highest ref shown: e4 was never
	// seen, so it is free again; e1–e3 are never handed out again.
	next := docPage("dash", "x", "y")
	r.Assign(next)
	if got := refsOf(next); got["x"] != "e4" || got["y"] != "e5" {
		t.Errorf("refs after the replacement = %v, want x=e4 y=e5", got)
	}
	if _, ok := r.Gone("e4"); ok {
		t.Error("e4 is live again but still reported gone")
	}
	// A key of the old document gets a new ref if it ever shows again.
	if ref := r.For("a"); ref == "e1" {
		t.Error("a retired key kept its old ref")
	}
}

func TestRefsRetireKeepsOtherDocuments(t *testing.T) {
	r := tree.NewRefs()
	tab1 := docPage("doc1", "a", "b")
	tab2 := docPage("doc2", "c", "d")
	r.Assign(tab1)
	r.Assign(tab2)
	r.Shown("e1") // little shown, but tab 2's refs are live
	r.Retire("doc1", "in tab 1, which was closed")
	if _, ok := r.Gone("e1"); !ok {
		t.Error("e1 of the closed tab is not gone")
	}
	if ref := r.For("c"); ref != "e3" {
		t.Errorf("tab 2's node lost its ref: %s", ref)
	}
	fresh := docPage("doc3", "z")
	r.Assign(fresh)
	if got := refsOf(fresh)["z"]; got != "e5" {
		t.Errorf("a new node got %s, want e5 (after tab 2's live e4)", got)
	}
}

func TestRefsShownIgnoresLookAlikes(t *testing.T) {
	r := tree.NewRefs()
	r.Assign(docPage("d", "a", "b"))
	r.Shown(`"see e99999 and see2 and e1x" button e2 (in e1)`)
	r.Retire("d", "gone")
	if _, ok := r.Gone("e2"); !ok {
		t.Error("e2 was shown")
	}
	fresh := docPage("d2", "c")
	r.Assign(fresh)
	if got := refsOf(fresh)["c"]; got != "e3" {
		t.Errorf("page words that look like refs moved numbering: got %s, want e3", got)
	}
}

func TestRefsMint(t *testing.T) {
	r := tree.NewRefs()
	root := docPage("d", "a")
	text := keyed("t1", el(tree.RoleText, "Helena"))
	root.Children = append(root.Children, text)
	r.Assign(root)
	if text.Ref != "" {
		t.Fatalf("text got a ref on Assign: %s", text.Ref)
	}
	if got := r.Mint(text); got != "e2" || text.Ref != "e2" {
		t.Fatalf("Mint = %s, want e2", got)
	}
	// A later snapshot of the same document keeps the minted ref.
	again := docPage("d", "a")
	text2 := keyed("t1", el(tree.RoleText, "Helena"))
	again.Children = append(again.Children, text2)
	r.Assign(again)
	if text2.Ref != "e2" {
		t.Errorf("minted ref not kept: %q", text2.Ref)
	}
	if got := r.Mint(el(tree.RoleText, "no key")); got != "" {
		t.Errorf("a node without a key got %s", got)
	}
}
