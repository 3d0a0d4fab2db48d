package tree

import "testing"

func TestAt(t *testing.T) {
	box := func(x, y, w, h float64) *Rect { return &Rect{X: x, Y: y, W: w, H: h} }
	under := &Node{Role: "button", Name: "Under", Ref: "e3", Bounds: box(10, 10, 50, 20)}
	over := &Node{Role: "button", Name: "Over", Ref: "e4", Bounds: box(40, 10, 50, 20)}
	label := &Node{Role: RoleText, Name: "Over", Bounds: box(45, 12, 20, 10)}
	over.Children = []*Node{label}
	wrapper := &Node{Role: RoleGeneric, Children: []*Node{under, over}} // no box
	form := &Node{Role: "form", Name: "F", Ref: "e2", Bounds: box(0, 0, 200, 100), Children: []*Node{wrapper}}
	root := &Node{Role: RoleDocument, Bounds: box(0, 0, 800, 600), Children: []*Node{form}}
	for _, c := range []struct {
		x, y float64
		want string
	}{
		{15, 15, "e3"},  // only Under
		{50, 15, "e4"},  // both: the later one is on top
		{50, 14, "e4"},  // on Over's text, which has no ref: Over
		{150, 50, "e2"}, // inside the form, on no button
		{500, 500, ""},  // the document has no ref
		{900, 5, ""},    // outside everything
	} {
		got := ""
		if n := At(root, c.x, c.y); n != nil {
			got = n.Ref
		}
		if got != c.want {
			t.Errorf("At(%v,%v) = %q, want %q", c.x, c.y, got, c.want)
		}
	}
}
