package browser

import (
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"

	"github.com/canopy-dev/canopy/tree"
)

// Delegated click handlers: many pages listen for clicks on a list and
// find the item clicked from the event's target (jQuery's .on('click',
// '.row'), an inbox whose rows are plain <div>s). The items then carry no
// click evidence of their own, and the tree shows them as bare text. Where
// the listener can be seen — on an element that holds a run of look-alike
// items — the items count as clickable: they get refs and the clickable
// state, as an agent would expect from a list it can click into.

// minDelegated is the fewest look-alike items that make a container a list
// whose listener serves them.
const minDelegated = 2

// maxDelegatedText caps the text of one delegated item: a row of a list,
// not a section of the page.
const maxDelegatedText = 300

// delegate marks the items of t, a container with click listeners, when it
// holds a run of look-alike elements (same tag and class), looking through
// up to two single-child wrappers, and reports whether it did: such a
// container is a list serving its items, not a control itself. Items that
// hold controls of their own are left alone.
func (d *axDoc) delegate(t *tree.Node) bool {
	list := t
	for range 3 {
		if items := d.lookAlikes(list.Children); len(items) >= minDelegated {
			for _, it := range items {
				it.States |= tree.Clickable
				if it.Hint == "" {
					it.Hint = d.domNodeOf(it).hint()
				}
			}
			return true
		}
		if len(list.Children) != 1 {
			return false
		}
		list = list.Children[0]
	}
	return false
}

// lookAlikes returns the largest group of kids that share tag and class,
// when it is most of the kids and each could be an item: an element that is
// not already a control and holds no control and not too much text.
func (d *axDoc) lookAlikes(kids []*tree.Node) []*tree.Node {
	groups := map[string][]*tree.Node{}
	best, elements := "", 0
	for _, k := range kids {
		dn := d.domNodeOf(k)
		if dn == nil || k.Role == tree.RoleText {
			continue
		}
		elements++
		if !itemLike(k) {
			continue
		}
		sig := dn.tag + "." + dn.attrs["class"]
		groups[sig] = append(groups[sig], k)
		if len(groups[sig]) > len(groups[best]) {
			best = sig
		}
	}
	if g := groups[best]; len(g)*2 >= elements {
		return g
	}
	return nil
}

// itemLike reports whether n could be one item of a clickable list.
func itemLike(n *tree.Node) bool {
	if tree.IsActionRole(n.Role) || n.States.Has(tree.Clickable) {
		return false
	}
	text, ok := 0, true
	for _, c := range n.Children {
		tree.Walk(c, func(x *tree.Node) bool {
			if tree.IsActionRole(x.Role) || x.States.Has(tree.Clickable) {
				ok = false
			}
			text += len(x.Name)
			return ok
		})
	}
	return ok && text <= maxDelegatedText
}

// domNodeOf returns the DOM facts of a node converted from this document
// (its key is the document's target and the node's backend id), or nil.
func (d *axDoc) domNodeOf(n *tree.Node) *domNode {
	tid, id, ok := strings.Cut(n.Key, ":")
	if !ok || tid != string(d.target) {
		return nil
	}
	v, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	return d.domNode(cdp.BackendNodeID(v))
}
