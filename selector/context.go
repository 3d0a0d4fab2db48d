package selector

import (
	"strings"

	"github.com/canopy-dev/canopy/tree"
)

// maxContext is how many runes of an ancestor's name or text a context
// quotes: enough to tell rows apart, not a whole row.
const maxContext = 40

// hits turns candidate positions into hits, with a context on each whose
// line (refs aside) another hit shares: `button "Edit"` twice says nothing
// until each says which row it is in.
func (ix *index) hits(ids []int) []Hit {
	out := make([]Hit, len(ids))
	seen := map[string]int{}
	for k, i := range ids {
		out[k].Node = ix.nodes[i]
		seen[bareLine(ix.nodes[i])]++
	}
	for k, i := range ids {
		if seen[bareLine(ix.nodes[i])] > 1 {
			out[k].Context = ix.contextOf(i)
		}
	}
	return out
}

// bareLine is a node's line without its ref, to spot look-alikes.
func bareLine(n *tree.Node) string {
	c := *n
	c.Ref = ""
	return tree.Line(&c)
}

// contextOf names the nearest ancestor of i that tells it apart: a row, list
// item, article, form, dialog… by its name, or by the first text inside it
// that is not i's own, e.g. `row "john@example.com"`; "" when none does.
func (ix *index) contextOf(i int) string {
	for a := ix.parent[i]; a >= 0 && !ix.isRoot[a]; a = ix.parent[a] {
		n := ix.nodes[a]
		if !contextRoles[n.Role] {
			continue
		}
		label := n.Name
		if label == "" {
			label = ix.firstText(a, i)
		}
		if label == "" {
			continue
		}
		if r := []rune(label); len(r) > maxContext {
			label = strings.TrimRight(string(r[:maxContext-1]), " |,;:·-") + "…"
		}
		return tree.Line(&tree.Node{Role: n.Role, Name: label})
	}
	return ""
}

// firstText returns the first name or text inside a, outside i's subtree,
// that is not a control's (a list item's "Buy milk", not its "Delete").
func (ix *index) firstText(a, i int) string {
	for j := a + 1; j < ix.end[a]; j++ {
		if j >= i && j < ix.end[i] {
			j = ix.end[i] - 1
			continue
		}
		n := ix.nodes[j]
		if n.Name != "" && !tree.IsActionRole(n.Role) {
			return n.Name
		}
	}
	return ""
}

// contextRoles are the containers whose name or text places a node for an
// agent: the record it belongs to, or the part of the page.
var contextRoles = map[string]bool{
	"row": true, "listitem": true, "article": true, "treeitem": true, "option": true,
	"group": true, "form": true, "dialog": true, "alertdialog": true, "region": true,
	"navigation": true, "section": true, "tabpanel": true, "figure": true,
	"complementary": true, "banner": true, "contentinfo": true, "main": true,
}
