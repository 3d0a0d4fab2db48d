package tree

// At returns the node a point falls on: the innermost node with a ref
// whose box holds x,y. Where siblings overlap, the later one wins, as the
// later is drawn on top unless a style says otherwise. A node without a
// box (a wrapper, an application) is looked into all the same. nil when no
// node with a ref holds the point.
//
// Boxes are what the tree holds, so x,y are in its units (screen pixels on
// the desktop, the document's layout pixels in a page's own tree).
func At(root *Node, x, y float64) *Node {
	if root == nil {
		return nil
	}
	in := root.Bounds == nil || root.Bounds.Contains(x, y)
	if !in {
		return nil
	}
	for i := len(root.Children) - 1; i >= 0; i-- {
		if n := At(root.Children[i], x, y); n != nil {
			return n
		}
	}
	if root.Ref != "" && root.Bounds != nil {
		return root
	}
	return nil
}

// Contains says whether x,y is inside the box (its right and bottom edges
// excluded).
func (r Rect) Contains(x, y float64) bool {
	return x >= r.X && y >= r.Y && x < r.X+r.W && y < r.Y+r.H
}
