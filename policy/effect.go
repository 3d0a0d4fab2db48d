package policy

import (
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/keys"
	"github.com/canopy-dev/canopy/tree"
)

// The effect of an action, as far as the page's tree tells: the nodes
// that really receive it, which the rules judge rather than only the node
// it names. A page that wants an unasked "Pay" gets no further by naming
// the amount field and submitting, by tabbing onto the button and pressing
// Enter with no target, or by clicking the group around it.

// receivers returns the nodes an action reaches on page: its target, or
// the focused node for keys and text with no target; the node under the
// pointer at the target's centre (the deepest with a box there) for a
// pointer action; the form's submitter when the keys or text submit it;
// a drag's drop target. Nil nodes are left out; the order is the target's
// first.
// Reaches are the nodes an action reaches besides its target, which the
// policy judges as it judges the target (receivers): for the audit line.
func Reaches(r Request) []*tree.Node {
	var out []*tree.Node
	for _, n := range receivers(r) {
		if n != r.Node {
			out = append(out, n)
		}
	}
	return out
}

func receivers(r Request) []*tree.Node {
	a := r.Action
	var out []*tree.Node
	add := func(n *tree.Node) {
		if n != nil {
			for _, x := range out {
				if x == n {
					return
				}
			}
			out = append(out, n)
		}
	}
	add(r.Node)
	if r.Page == nil {
		add(r.To)
		return out
	}
	keyed := r.Node
	if r.Node == nil && (a.Kind == action.Press || a.Kind == action.Type) {
		keyed = focusedNode(r.Page)
		add(keyed)
	}
	switch a.Kind {
	case action.Click, action.DoubleClick:
		add(underCentre(r.Node))
	case action.Press:
		if pressesEnter(a.Keys) {
			add(submitter(r.Page.Root, keyed))
		}
	case action.Type:
		if a.Submit {
			add(submitter(r.Page.Root, keyed))
		}
	}
	add(r.To)
	return out
}

// focusedNode is the node with the focus on page, or nil.
func focusedNode(page *tree.Snapshot) *tree.Node {
	var n *tree.Node
	tree.Walk(page.Root, func(x *tree.Node) bool {
		if x.States.Has(tree.Focused) {
			n = x
		}
		return true
	})
	return n
}

// underCentre is the deepest descendant of n whose box holds n's centre:
// what a click at n's centre lands on. Nil when n has no box or no such
// descendant.
func underCentre(n *tree.Node) *tree.Node {
	if n == nil || n.Bounds == nil || len(n.Children) == 0 {
		return nil
	}
	x, y := n.Bounds.X+n.Bounds.W/2, n.Bounds.Y+n.Bounds.H/2
	var hit *tree.Node
	var walk func(c *tree.Node)
	walk = func(c *tree.Node) {
		for _, k := range c.Children {
			if b := k.Bounds; b != nil && x >= b.X && x < b.X+b.W && y >= b.Y && y < b.Y+b.H {
				hit = k
				walk(k)
				return
			}
			if k.Bounds == nil {
				walk(k) // a node without a box may hold ones that have one
			}
		}
	}
	walk(n)
	return hit
}

// pressesEnter says whether spec presses Enter (which submits a form from
// its fields and presses a focused button).
func pressesEnter(spec string) bool {
	chords, err := keys.Parse(spec)
	if err != nil {
		return false
	}
	for _, c := range chords {
		if c.Key == "Enter" {
			return true
		}
	}
	return false
}

// submitter is the button that submitting n's form presses: the form's
// first enabled button (a form's default button is its first submit
// button; the tree does not tell submit buttons from others, so this
// asks about one more at worst). Nil when n is in no form.
func submitter(root, n *tree.Node) *tree.Node {
	form := enclosing(root, n, "form")
	if form == nil {
		return nil
	}
	return tree.Find(form, func(x *tree.Node) bool {
		return x.Role == "button" && !x.States.Has(tree.Disabled)
	})
}
