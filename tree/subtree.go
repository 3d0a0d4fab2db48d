package tree

import (
	"strconv"
	"strings"
)

// FormatChildren prints the children of parent, each with its subtree, the
// way [Format] prints a snapshot's body: one line per node, two spaces of
// indentation per level (the children sit at depth 0), long runs of similar
// siblings elided within opt.Budget tokens, and elision lines that point at
// parent's ref. parent's own line is not printed.
//
// It exists so that parts of a tree — the subtree a diff shows as added, the
// scope of a snapshot — are printed by the one formatter under the same
// budget rules as a whole snapshot. A caller that wants to print some nodes
// that are not one node's children passes a stand-in parent holding them,
// with the Ref an elision line should cite.
//
// The lines are returned without trailing newlines; nil when there are no
// children.
func FormatChildren(parent *Node, opt Options) []string {
	if parent == nil || len(parent.Children) == 0 {
		return nil
	}
	f := newFormatter(opt)
	var b strings.Builder
	if f.full {
		f.cap, f.depth = -1, f.maxLevels
	} else {
		f.measure(parent)
		f.plan(parent.Children, f.budget)
	}
	f.write(&b, parent, 0)
	if f.cut > 0 {
		b.WriteString("… " + strconv.Itoa(f.cut) + " more lines (" + f.seeMore(parent) + ")\n")
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// Listed returns n's children as the tree text shows them under n's line: a
// child that prints nothing of its own (an unnamed paragraph, the unnamed
// main landmark that holds a whole page) is replaced by its own children.
// The shell lists a folder with it, so `ls` shows what a snapshot shows.
// A collapsed select's options are listed, though a snapshot counts them.
func Listed(n *Node) []*Node {
	var out []*Node
	for _, c := range n.Children {
		if transparent(c) {
			out = append(out, Listed(c)...)
			continue
		}
		out = append(out, c)
	}
	return out
}
