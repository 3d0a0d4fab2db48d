// Package diff computes what changed between two snapshots of the same page
// or desktop and prints it in the compact form of docs/diffs.md, so that every
// action can be answered with a few lines instead of the whole tree again:
//
//	opened dialog "Confirm delete" e40
//	  button "Delete" e41
//	~ checkbox "Remember me" e16: checked → not checked
//	- status "Saving…" e9
//
// # Algorithm
//
// Both trees are indexed once in document order (parent, nearest ancestor
// with a ref, subtree extent). Nodes are then matched:
//
//  1. The roots match, and every ref present in both trees matches: a ref
//     names the same underlying object for the whole session.
//  2. For every matched pair, the children without refs are aligned: the
//     children with refs that sit under both parents anchor the alignment
//     (those that keep their relative order, found by a longest increasing
//     subsequence; any others mean the parent's order changed), and between
//     two anchors the children without refs are matched by role and name —
//     a common prefix and suffix first, then an LCS when the gap is small,
//     then by position. In the LCS a container is known by its first
//     control while that control is still there, and an unnamed list item,
//     tree item, row or article by its first text ([tree.FirstText]).
//     Left-over nodes at the same position with the same role pair up as
//     "changed text" — but not two unnamed items with different texts:
//     another item took the place, one is removed and one added. Children
//     with refs that are gone and new ones that print the same but for the
//     ref (a node the page re-rendered as it was) pair up, in order, as one
//     `~ … e12 → e17` line. New pairs are aligned in turn.
//
// Every step is linear in the number of nodes except the LCS, which only runs
// on gaps of at most [maxLCS] pairs; a 1,000-row table diffs in a few
// milliseconds. Volatile data — bounds, source keys, DOM ids, timings — is
// never compared, and the focused state is reported once as an outcome
// rather than as a change on two nodes.
//
// Then the after tree is walked in document order: an unmatched node whose
// parent matched is a topmost added node (printed with its subtree through
// the one formatter, [tree.FormatChildren]); a matched node whose fields
// differ is a `~` line; a node with a ref whose nearest ancestor with a ref
// changed is a `>` move. Removed nodes are found the same way in the before
// tree and placed where they used to be. Dialogs opened or closed and focus
// moves become outcome lines, printed before all changes; an opened dialog's
// content is printed once, under its outcome line, and a closed one is not
// listed again as removed.
package diff

import (
	"slices"

	"github.com/canopy-dev/canopy/tree"
)

// Op says what happened to a node.
type Op byte

// The kinds of change, written as the first character of a change line.
const (
	Added   Op = '+' // the node and its subtree are new
	Removed Op = '-' // the node and its subtree are gone
	Changed Op = '~' // name, value, states, level, role or child order changed
	Moved   Op = '>' // a node with a ref now sits under another ref'd ancestor
)

// Change is one change line (or, for Added, one block of lines).
type Change struct {
	Op Op
	// Subject names the node as its line does. For Changed and Moved it is
	// the short form `role "name" ref` of the node before, so the line does
	// not repeat the states and value it then describes (`role ref` when the
	// name is what changed); for a node without
	// a ref whose name changed it is `"old" → "new"` (`heading "Old" →
	// "New"`), since such a node is known by its text; for a node the page
	// re-rendered as it was, under a new ref, it is `role "name" e12 → e17`
	// and Fields is empty. For Removed it is the
	// node's full line as [tree.Cite] prints it (an unnamed container named
	// by the text inside it, `listitem "Buy milk"`); for Added, the first
	// added node's [tree.Line].
	Subject string
	// Fields lists what changed, e.g. `checked → not checked`,
	// `value "" → "a@b.c"`, `order changed`; empty for Added and Removed.
	Fields []string
	// Node is the node after the change (Added, Changed, Moved) or the node
	// that was removed (Removed).
	Node *tree.Node
	// Before is the node before the change, for Changed and Moved.
	Before *tree.Node
	// Added is a run of adjacent added siblings, Node first; printed
	// together so long runs are elided as in a snapshot.
	Added []*tree.Node
	// To is, for Moved, the ref of the node's new nearest ancestor with a
	// ref; empty when it moved to the top level.
	To string
	// In is the ref of the nearest ancestor with a ref (in the tree the
	// node is printed from), or empty. The line cites it, as ` (in e5)`,
	// only for a node without a ref of its own, so the agent knows where
	// the change happened.
	In string
}

// Diff is the difference between two snapshots: outcome lines (what an agent
// most needs to know: navigation, dialogs, focus…) and change lines, both in
// print order.
type Diff struct {
	// Outcomes are printed first and are never cut by the budget. Compute
	// fills in dialogs opened or closed and focus moves; a source adds its
	// own (navigation, new tab, download, alert text) with Prepend.
	Outcomes []string
	// Changes are in document order of the after tree, removed nodes at
	// their place in the before tree.
	Changes []Change
	// focused is the node the focus outcome names, if there is one.
	focused *tree.Node
	// after is the after tree's root.
	after *tree.Node
	// blocks are the dialogs that opened, each printed once under its
	// outcome line instead of as an added block.
	blocks []block
}

// block is an opened dialog (or window) printed under its outcome line.
type block struct {
	line string
	node *tree.Node
}

// DropFocusOn removes the focus outcome when focus moved to a node the
// action targeted (docs/diffs.md): clicking a field focuses it, which is no news.
// targets are the nodes the action's steps acted on, as read before them.
// Focus counts as moved to a target when the focused node is the target
// (the same ref) or — when the target itself is gone, replaced by a
// re-render — has its role and name. A move anywhere else stays, into the
// target too (activating a window says where its focus landed).
func (d *Diff) DropFocusOn(targets ...*tree.Node) {
	if d.focused == nil || !slices.ContainsFunc(targets, d.focusedOn) {
		return
	}
	line := "focus → " + short(d.focused)
	d.Outcomes = slices.DeleteFunc(d.Outcomes, func(o string) bool { return o == line })
	d.focused = nil
}

// focusedOn reports whether the focused node is target or replaced it.
func (d *Diff) focusedOn(target *tree.Node) bool {
	if target == nil || target.Ref == "" {
		return false
	}
	if d.focused.Ref == target.Ref {
		return true
	}
	return target.Role == d.focused.Role && target.Name != "" && target.Name == d.focused.Name &&
		tree.FindRef(d.after, target.Ref) == nil
}

// Compute returns the changes that turn before into after, matched by ref and
// aligned where there are no refs (see the package doc). A nil snapshot or
// root counts as an empty page.
func Compute(before, after *tree.Snapshot) Diff {
	d := newDiffer(rootOf(before), rootOf(after))
	d.match()
	return d.result()
}

func rootOf(s *tree.Snapshot) *tree.Node {
	if s == nil || s.Root == nil {
		return &tree.Node{Role: tree.RoleDocument}
	}
	return s.Root
}

// Prepend puts outcome lines from the source (navigation, a new tab, a
// download, a JavaScript dialog's text) before the ones Compute derived from
// the trees, since they say more about what the action did.
func (d *Diff) Prepend(outcomes ...string) {
	d.Outcomes = append(append([]string(nil), outcomes...), d.Outcomes...)
}

// Empty reports whether nothing changed; such a diff prints as `no change`.
func (d Diff) Empty() bool { return len(d.Outcomes) == 0 && len(d.Changes) == 0 }
