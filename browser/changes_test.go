package browser

import (
	"errors"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
)

// ax makes an accessibility node: id, its DOM node, its parent, its children.
func ax(id string, dom int64, parent string, kids ...string) *accessibility.Node {
	n := &accessibility.Node{NodeID: accessibility.NodeID(id), BackendDOMNodeID: cdp.BackendNodeID(dom), ParentID: accessibility.NodeID(parent)}
	for _, k := range kids {
		n.ChildIDs = append(n.ChildIDs, accessibility.NodeID(k))
	}
	return n
}

func ids(nodes []*accessibility.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, string(n.NodeID))
	}
	return out
}

// TestSplice: a whole region replaces its old subtree; a shallow one
// replaces its own node and keeps its children's subtrees; ancestors come
// fresh; an inline text box's renumbered id is no missing child; a child no
// read returned makes the read whole.
func TestSplice(t *testing.T) {
	kept := []*accessibility.Node{
		ax("1", 1, "", "2"),
		ax("2", 2, "1", "3", "6"),
		ax("3", 3, "2", "4", "5"),
		ax("4", 4, "3"),
		ax("5", 5, "3", "-100"),
		ax("6", 6, "2", "7"),
		ax("7", 7, "6"),
	}
	// Node 3 re-read whole: 4 went, 8 came. Node 6 re-read shallow: 9
	// added before 7 (9 re-read whole).
	regions := []*region{
		{root: 3, ax: []*accessibility.Node{ax("3", 3, "2", "8", "5"), ax("8", 8, "3"), ax("5", 5, "3", "-200")},
			rel: []*accessibility.Node{ax("3", 3, "2", "8", "5"), ax("2", 2, "1", "3", "3", "6"), ax("1", 1, "", "2")}},
		{root: 6, shallow: true, rel: []*accessibility.Node{ax("6", 6, "2", "9", "7"), ax("2", 2, "1", "6", "3", "6"), ax("1", 1, "", "2")}},
		{root: 9, ax: []*accessibility.Node{ax("9", 9, "6")}, rel: []*accessibility.Node{ax("9", 9, "6"), ax("6", 6, "2", "9", "9", "7")}},
	}
	got, err := splice(kept, regions, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "2", "3", "8", "5", "6", "9", "7"}; !slices.Equal(ids(got), want) {
		t.Errorf("spliced %v, want %v", ids(got), want)
	}
	// 7's subtree was not re-read, and now names a child nobody returned.
	regions = append(regions, &region{root: 7, shallow: true, rel: []*accessibility.Node{ax("7", 7, "6", "10")}})
	var w errWhole
	if _, err := splice(kept, regions, false); !errors.As(err, &w) {
		t.Errorf("a child no read returned: %v, want a whole read", err)
	}
}

// TestOnce: getPartialAXTree puts the child on the path first and again in
// its place; the place counts.
func TestOnce(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"23", "16", "17", "2", "23", "25"}, []string{"16", "17", "2", "23", "25"}},
		{[]string{"673", "673"}, []string{"673"}},
		{[]string{"1", "2"}, []string{"1", "2"}},
	} {
		n := ax("p", 0, "", c.in...)
		if got := ids(childNodes(once(n))); !slices.Equal(got, c.want) {
			t.Errorf("once(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func childNodes(n *accessibility.Node) []*accessibility.Node {
	var out []*accessibility.Node
	for _, id := range n.ChildIDs {
		out = append(out, &accessibility.Node{NodeID: id})
	}
	return out
}

// TestUsedFacts: facts of elements no node stands for go.
func TestUsedFacts(t *testing.T) {
	facts := map[cdp.BackendNodeID]*domNode{1: {tag: "div"}, 2: {tag: "p"}, 3: {tag: "span"}}
	got := usedFacts(facts, []*accessibility.Node{ax("a", 1, ""), ax("b", 3, "a"), ax("c", 0, "a")})
	if len(got) != 2 || got[1] == nil || got[3] == nil {
		t.Errorf("kept %v, want the facts of 1 and 3", got)
	}
}
