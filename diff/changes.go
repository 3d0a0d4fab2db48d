package diff

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/canopy-dev/canopy/tree"
)

// keyed orders changes: 2×(after index) for a node of the after tree,
// 2×(after index)+1 for a removed node that sat right after it; ties keep
// before order.
type keyed struct {
	key, sub int
	c        Change
}

// result walks both trees after matching and builds the diff.
func (d *differ) result() Diff {
	var out []keyed
	var opened, closed []string
	var blocks []block
	a, b := d.a, d.b
	for i := int32(0); i < int32(len(a.nodes)); i++ {
		in := &a.nodes[i]
		if in.match >= 0 {
			if c, ok := d.compare(in.match, i); ok {
				out = append(out, keyed{key: 2 * int(i), c: c})
			}
			continue
		}
		if unreadIn(in.node, b.unread) {
			i = in.end // it came into the part read, or is an elision: no change
			continue
		}
		// A topmost added node (its parent matched, or the walk would have
		// skipped it), and the added siblings right after it.
		c := Change{Op: Added, Node: in.node, Subject: tree.Line(in.node), In: a.anchorRef(i)}
		j := i
		for j < int32(len(a.nodes)) && a.nodes[j].parent == in.parent && a.nodes[j].match < 0 {
			c.Added = append(c.Added, a.nodes[j].node)
			j = a.nodes[j].end + 1
		}
		for k := i; k < j; k++ {
			a.nodes[k].added = true
			if a.nodes[k].match < 0 {
				if o, ok := a.outcome(k); ok {
					opened = append(opened, "opened "+o)
					if a.topmost(k, in.parent) {
						blocks = append(blocks, block{line: "opened " + o, node: a.nodes[k].node})
					}
				}
			}
		}
		out = append(out, keyed{key: 2 * int(i), c: c})
		i = j - 1
	}
	for i := int32(0); i < int32(len(b.nodes)); i++ {
		in := &b.nodes[i]
		if in.match >= 0 {
			continue
		}
		for k := i; k <= in.end; k++ {
			if b.nodes[k].match < 0 {
				if o, ok := b.outcome(k); ok {
					closed = append(closed, "closed "+o)
				}
			}
		}
		// Not reported inside an added subtree: that prints as it is now;
		// nor a closed dialog, which its outcome line says; nor a node that
		// left the part read.
		if !a.nodes[b.nodes[in.parent].match].added && !isDialog(in.node) && !unreadIn(in.node, a.unread) {
			c := Change{Op: Removed, Node: in.node, Subject: tree.Cite(in.node), In: b.anchorRef(i)}
			out = append(out, keyed{key: d.removedKey(i), sub: int(i), c: c})
		}
		i = in.end
	}
	slices.SortStableFunc(out, func(x, y keyed) int {
		if x.key != y.key {
			return x.key - y.key
		}
		return x.sub - y.sub
	})
	var diff Diff
	focus, focused := d.focus()
	diff.Outcomes, diff.after = append(append(closed, opened...), focus...), d.a.node(0)
	if focused >= 0 {
		diff.focused = a.nodes[focused].node
	}
	for _, k := range out {
		diff.Changes = append(diff.Changes, k.c)
	}
	diff.Changes = dropDerivedNames(diff.Changes)
	diff.Changes, diff.blocks = underOutcomes(diff.Changes, blocks)
	return diff
}

// unreadBefore reports whether n is a placeholder for children a source
// did not read, or one of the children another reading's placeholders
// stand for (unread): in a page read on demand, what is read moves (a row
// removed above brings the next into the part read), and that is no change.
func unreadIn(n *tree.Node, unread map[string]bool) bool {
	return n.Role == tree.RoleUnread || n.Key != "" && unread[n.Key]
}

// topmost reports whether added node k is printed at the top of its added
// block: a child of parent (the matched node the block hangs from), or a
// child of an application that is (a desktop window that opened with its
// program).
func (s *side) topmost(k, parent int32) bool {
	p := s.nodes[k].parent
	return p == parent || s.nodes[p].parent == parent && s.nodes[p].node.Role == "application"
}

// underOutcomes takes the dialogs that opened out of the added blocks: each
// is printed once, under its outcome line (docs/diffs.md). An added application
// left holding nothing else goes too: the outcome line names it.
func underOutcomes(cs []Change, blocks []block) ([]Change, []block) {
	if len(blocks) == 0 {
		return cs, nil
	}
	shown := map[*tree.Node]bool{}
	for _, b := range blocks {
		shown[b.node] = true
	}
	out := cs[:0]
	for _, c := range cs {
		if c.Op != Added {
			out = append(out, c)
			continue
		}
		kept := c.Added[:0:0]
		for _, n := range c.Added {
			if shown[n] || n.Role == "application" && len(n.Children) > 0 && allShown(n.Children, shown) {
				continue
			}
			kept = append(kept, n)
		}
		if len(kept) == 0 {
			continue
		}
		if kept[0] != c.Node {
			c.Node, c.Subject = kept[0], tree.Line(kept[0])
		}
		c.Added = kept
		out = append(out, c)
	}
	return out, blocks
}

func allShown(ns []*tree.Node, shown map[*tree.Node]bool) bool {
	for _, n := range ns {
		if !shown[n] {
			return false
		}
	}
	return true
}

// inCollapsedSelect reports whether node ai of the after tree is an option
// of a collapsed combobox: its line counts the options instead of listing
// them, and its value says which one is chosen, so a change of selection
// is no news of its own.
func (d *differ) inCollapsedSelect(ai int32) bool {
	if d.a.nodes[ai].node.Role != "option" {
		return false
	}
	for p := d.a.nodes[ai].parent; p >= 0; p = d.a.nodes[p].parent {
		switch n := d.a.nodes[p].node; n.Role {
		case "combobox":
			return !n.States.Has(tree.Expanded)
		case "group", "listbox", "menu", tree.RoleGeneric:
		default:
			return false
		}
	}
	return false
}

// dropDerivedNames leaves out a row's or cell's name change when changes
// inside it are reported, and the name change of a container without a ref
// whose controls (with refs) say it: such a name is made of its content (a row named
// from its cells), so the inner lines already say it.
func dropDerivedNames(cs []Change) []Change {
	inner := map[string]bool{}
	for _, c := range cs {
		if c.In != "" {
			inner[c.In] = true
		}
	}
	out := cs[:0]
	for _, c := range cs {
		derived := c.Op == Changed && c.Node != nil && c.Node.Ref != "" && inner[c.Node.Ref] &&
			(c.Node.Role == "row" || c.Node.Role == "cell" || c.Node.Role == "gridcell") &&
			len(c.Fields) == 1 && strings.HasPrefix(c.Fields[0], "name ")
		// A container without a ref named from the controls it holds.
		derived = derived || c.Op == Changed && c.Node != nil && c.Before != nil && c.Node.Ref == "" &&
			len(c.Fields) == 0 && c.Before.Name != c.Node.Name && c.Node.Role != tree.RoleDocument && firstRef(c.Node) != ""
		if !derived {
			out = append(out, c)
		}
	}
	return out
}

// removedKey places removed node i of the before tree in after order: right
// after the after subtree of its nearest earlier sibling that is still
// there, or right after its parent's line.
func (d *differ) removedKey(i int32) int {
	in := d.b.nodes[i]
	p := in.parent
	sibs := d.b.kids(p, d.bufB[:0])
	d.bufB = sibs
	for k := int(in.pos) - 1; k >= 0; k-- {
		if m := d.b.nodes[sibs[k]].match; m >= 0 {
			return 2*int(d.a.nodes[m].end) + 1
		}
	}
	return 2*int(d.b.nodes[p].match) + 1
}

// longName is the length above which a changed name is shown only as its
// new value.
const longName = 40

// compare returns the Changed or Moved line of a matched pair, if any.
func (d *differ) compare(bi, ai int32) (Change, bool) {
	b, a := d.b.nodes[bi].node, d.a.nodes[ai].node
	if b.Role == a.Role && b.Name == a.Name && b.Level == a.Level && b.Value == a.Value &&
		(b.States^a.States)&^tree.Focused == 0 && !d.a.nodes[ai].reordered &&
		(a.Ref == "" || d.b.anchorRef(bi) == d.a.anchorRef(ai)) && b.Ref == a.Ref {
		return Change{}, false // the common case, without allocating
	}
	c := Change{Op: Changed, Node: a, Before: b, Subject: short(b), In: d.a.anchorRef(ai)}
	if b.Ref != a.Ref && b.Ref != "" && a.Ref != "" {
		// Re-rendered as it was (differ.replaced): the new ref is the news.
		c.Subject += " → " + a.Ref
		return c, true
	}
	if b.Role != a.Role {
		c.Fields = append(c.Fields, "role "+b.Role+" → "+a.Role)
	}
	if b.Name != a.Name {
		if b.Ref == "" {
			// A node without a ref is known by its text.
			c.Subject += " → " + quote(a.Name)
		} else {
			// The field says the name; the subject need not.
			c.Subject = tree.Line(&tree.Node{Role: b.Role, Ref: b.Ref})
			if utf8.RuneCountInString(b.Name) > longName {
				// The agent has seen the old name; a long one (a row
				// named from its cells) is not worth repeating.
				c.Fields = append(c.Fields, "name → "+quote(a.Name))
			} else {
				c.Fields = append(c.Fields, "name "+quote(b.Name)+" → "+quote(a.Name))
			}
		}
	}
	if b.Level != a.Level {
		if b.Role == "heading" && a.Role == "heading" && b.Level > 0 && a.Level > 0 {
			c.Fields = append(c.Fields, "h"+strconv.Itoa(b.Level)+" → h"+strconv.Itoa(a.Level))
		} else {
			c.Fields = append(c.Fields, "level "+strconv.Itoa(b.Level)+" → "+strconv.Itoa(a.Level))
		}
	}
	states := stateChanges(b.States, a.States)
	if (b.States^a.States)&^(tree.Focused|tree.Selected) == 0 && d.inCollapsedSelect(ai) {
		states = nil
	}
	c.Fields = append(c.Fields, states...)
	if b.Value != a.Value {
		if b.States.Has(tree.Protected) || a.States.Has(tree.Protected) {
			c.Fields = append(c.Fields, "value changed")
		} else {
			c.Fields = append(c.Fields, "value "+quote(b.Value)+" → "+quote(a.Value))
		}
	}
	if d.a.nodes[ai].reordered {
		c.Fields = append(c.Fields, "order changed")
	}
	if a.Ref != "" && d.b.anchorRef(bi) != d.a.anchorRef(ai) {
		c.Op, c.To = Moved, d.a.anchorRef(ai)
		return c, true
	}
	return c, len(c.Fields) > 0 || b.Name != a.Name
}

// stateChanges describes the states gained and lost, focus aside (it is an
// outcome): `not checked → checked`, `checked → not checked`, and
// `collapsed → expanded` for the one change of a disclosure.
func stateChanges(b, a tree.State) []string {
	b &^= tree.Focused
	a &^= tree.Focused
	if a == b {
		return nil
	}
	gained, lost := a&^b, b&^a
	flip := func(from, to tree.State) bool { return lost.Has(from) && gained.Has(to) }
	var out []string
	for bit := tree.State(1); bit != 0; bit <<= 1 {
		name := bit.String()
		switch {
		case name == "":
		case bit == tree.Expanded && flip(tree.Collapsed, tree.Expanded):
			out = append(out, "collapsed → expanded")
		case bit == tree.Expanded && flip(tree.Expanded, tree.Collapsed):
			out = append(out, "expanded → collapsed")
		case bit == tree.Collapsed && (flip(tree.Collapsed, tree.Expanded) || flip(tree.Expanded, tree.Collapsed)):
		case gained.Has(bit):
			out = append(out, "not "+name+" → "+name)
		case lost.Has(bit):
			out = append(out, name+" → not "+name)
		}
	}
	return out
}

// focus returns the focus outcome and the index of the node it names in the
// after tree (-1 when none): the node focused now that was not before (the
// deepest, when several are), or the node that lost focus when nothing has
// it now.
func (d *differ) focus() ([]string, int32) {
	now, was := int32(-1), int32(-1)
	anyNow := false
	for i, in := range d.a.nodes {
		if !in.node.States.Has(tree.Focused) {
			continue
		}
		anyNow = true
		if in.match < 0 || !d.b.nodes[in.match].node.States.Has(tree.Focused) {
			now = int32(i)
		}
	}
	if now >= 0 {
		if d.a.nodes[now].added || d.a.nodes[now].node.Role == tree.RoleDocument {
			// The added subtree shows it as focused; focus that fell back
			// to the page itself (its control went away) is no news.
			return nil, -1
		}
		return []string{"focus → " + short(d.a.nodes[now].node)}, now
	}
	if anyNow {
		return nil, -1
	}
	for i, in := range d.b.nodes {
		if in.node.States.Has(tree.Focused) {
			was = int32(i)
		}
	}
	if was >= 0 {
		return []string{"focus left " + short(d.b.nodes[was].node)}, -1
	}
	return nil, -1
}

// isDialog reports whether n opening or closing is an outcome: a dialog on a
// page; a dialog, window or application on the desktop.
func isDialog(n *tree.Node) bool {
	switch n.Role {
	case "dialog", "alertdialog", "window", "application":
		return true
	}
	return false
}

// outcome cites node i for an opened or closed line, if its opening or
// closing is an outcome (isDialog). A desktop window says the application
// that owns it, `dialog "All Files" (xdg-desktop-portal-gtk) e22`, since
// which program drew a dialog is not always the one that asked for it; an
// application is cited only when none of its windows is, as that line
// says it already.
func (s *side) outcome(i int32) (string, bool) {
	n := s.nodes[i].node
	if !isDialog(n) {
		return "", false
	}
	if n.Role == "application" {
		for _, k := range s.kids(i, nil) {
			if isDialog(s.nodes[k].node) {
				return "", false
			}
		}
		return short(n), true
	}
	p := s.nodes[i].parent
	if p < 0 || s.nodes[p].node.Role != "application" || s.nodes[p].node.Name == "" {
		return short(n), true
	}
	line := tree.Line(&tree.Node{Role: n.Role, Name: n.Name, Unread: n.Unread}) + " (" + s.nodes[p].node.Name + ")"
	if n.Ref != "" {
		line += " " + n.Ref
	}
	return line, true
}

// short cites a node by role, name and ref only — a change line then says
// what changed without repeating states and value. It is printed by
// tree.Line, so a node reads the same as in a snapshot.
func short(n *tree.Node) string {
	return tree.Line(&tree.Node{Role: n.Role, Name: n.Name, Ref: n.Ref, Unread: n.Unread})
}

// quote quotes s as the formatter quotes text (escapes, length cut).
func quote(s string) string {
	if s == "" {
		return `""`
	}
	return tree.Line(&tree.Node{Role: tree.RoleText, Name: s})
}
