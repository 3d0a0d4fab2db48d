package diff

import (
	"strconv"

	"github.com/canopy-dev/canopy/tree"
)

// maxLCS caps the LCS table (before × after nodes) of one gap between
// anchors; a larger gap is aligned by position after trimming its common
// prefix and suffix.
const maxLCS = 1 << 14

// info is what the differ knows about one node of one tree. Nodes are kept
// in document order, so a node's index is its preorder number and its
// subtree is the range [index, end].
type info struct {
	node      *tree.Node
	parent    int32 // -1 for the root
	anchor    int32 // nearest proper ancestor with a ref; -1 when none
	pos       int32 // index among the parent's (non-nil) children
	end       int32 // index of the last node of the subtree
	match     int32 // the counterpart in the other tree; -1 when none
	reordered bool  // (after tree) children with refs changed order
	added     bool  // (after tree) inside an added subtree
}

// side indexes one tree.
type side struct {
	nodes []info
	byRef map[string]int32
	// unread has the keys of the nodes the tree's placeholders stand for
	// (tree.Node.UnreadKeys).
	unread map[string]bool
}

func index(root *tree.Node) *side {
	n := tree.Count(root)
	s := &side{
		nodes: make([]info, 0, n),
		byRef: make(map[string]int32, n/2),
	}
	var walk func(n *tree.Node, parent, anchor, pos int32)
	walk = func(n *tree.Node, parent, anchor, pos int32) {
		i := int32(len(s.nodes))
		s.nodes = append(s.nodes, info{node: n, parent: parent, anchor: anchor, pos: pos, match: -1})
		for _, k := range n.UnreadKeys {
			if s.unread == nil {
				s.unread = map[string]bool{}
			}
			s.unread[k] = true
		}
		if n.Ref != "" {
			if _, dup := s.byRef[n.Ref]; !dup {
				s.byRef[n.Ref] = i
			}
			anchor = i
		}
		k := int32(0)
		for _, c := range n.Children {
			if c != nil {
				walk(c, i, anchor, k)
				k++
			}
		}
		s.nodes[i].end = int32(len(s.nodes) - 1)
	}
	walk(root, -1, -1, 0)
	return s
}

// has reports whether a node of the tree has ref.
func (s *side) has(ref string) bool {
	_, ok := s.byRef[ref]
	return ok
}

// anchorRef returns the ref of node i's nearest ancestor with a ref.
func (s *side) anchorRef(i int32) string {
	if a := s.nodes[i].anchor; a >= 0 {
		return s.nodes[a].node.Ref
	}
	return ""
}

// kids appends the indexes of node i's children to buf: the first child
// follows its parent, and each next sibling follows the previous one's
// subtree.
func (s *side) kids(i int32, buf []int32) []int32 {
	for c := i + 1; c <= s.nodes[i].end; c = s.nodes[c].end + 1 {
		buf = append(buf, c)
	}
	return buf
}

func (s *side) node(i int32) *tree.Node { return s.nodes[i].node }

// differ matches the nodes of two trees.
type differ struct {
	b, a *side
	work [][2]int32 // matched pairs whose children are still to align
	bufB []int32    // scratch lists of children
	bufA []int32
}

func newDiffer(before, after *tree.Node) *differ {
	return &differ{b: index(before), a: index(after)}
}

func (d *differ) pair(bi, ai int32) {
	d.b.nodes[bi].match = ai
	d.a.nodes[ai].match = bi
	d.work = append(d.work, [2]int32{bi, ai})
}

// match pairs the roots and every ref found in both trees, then aligns the
// children of every pair, which may add pairs in turn.
func (d *differ) match() {
	d.pair(0, 0)
	for ai := range d.a.nodes {
		in := &d.a.nodes[ai]
		if in.match >= 0 || in.node.Ref == "" || d.a.byRef[in.node.Ref] != int32(ai) {
			continue
		}
		if bi, ok := d.b.byRef[in.node.Ref]; ok && d.b.nodes[bi].match < 0 {
			d.pair(bi, int32(ai))
		}
	}
	for k := 0; k < len(d.work); k++ {
		d.align(d.work[k][0], d.work[k][1])
	}
}

// align matches the children without refs of the pair (bi, ai).
func (d *differ) align(bi, ai int32) {
	bk, ak := d.b.kids(bi, d.bufB[:0]), d.a.kids(ai, d.bufA[:0])
	d.bufB, d.bufA = bk, ak
	if len(bk) == 0 || len(ak) == 0 {
		return
	}
	if len(bk) == len(ak) && d.sameChildren(bk, ak) {
		for k, c := range bk {
			if d.b.node(c).Ref == "" {
				d.pair(c, ak[k])
			}
		}
		return
	}
	// Children with refs under both parents, in before order, with their
	// after positions.
	var common [][2]int
	for k, c := range bk {
		if m := d.b.nodes[c].match; m >= 0 && d.b.node(c).Ref != "" && d.a.nodes[m].parent == ai {
			common = append(common, [2]int{k, int(d.a.nodes[m].pos)})
		}
	}
	anchors := increasing(common)
	if len(anchors) < len(common) {
		d.a.nodes[ai].reordered = true
	}
	pb, pa := -1, -1
	for _, c := range append(anchors, [2]int{len(bk), len(ak)}) {
		d.alignGap(unreffed(d.b, bk[pb+1:c[0]]), unreffed(d.a, ak[pa+1:c[1]]))
		pb, pa = c[0], c[1]
	}
	d.replaced(bk, ak)
}

// replaced pairs the children with refs that are gone (bk, before) with new
// ones (ak, after) that print the same but for the ref, in order: a node
// the page re-rendered as it was (a breadcrumb redrawn, a list rebuilt by
// innerHTML). Such a pair is one `~ … e12 → e17` line, not a `-` and a `+`
// of the same thing. Only nodes whose subtrees hold no other ref pair up,
// so no new ref goes unsaid.
func (d *differ) replaced(bk, ak []int32) {
	from := 0
	for _, x := range bk {
		if d.b.nodes[x].match >= 0 || d.b.node(x).Ref == "" {
			continue
		}
		for k := from; k < len(ak); k++ {
			y := ak[k]
			if d.a.nodes[y].match < 0 && d.a.node(y).Ref != "" && sameModuloRef(d.b.node(x), d.a.node(y)) {
				d.pair(x, y)
				from = k + 1
				break
			}
		}
	}
}

// sameModuloRef reports whether x and y print the same, focus and the refs
// of x and y themselves aside, and hold no refs below them.
func sameModuloRef(x, y *tree.Node) bool {
	if x.Role != y.Role || x.Name != y.Name || x.Value != y.Value || x.Level != y.Level ||
		(x.States^y.States)&^tree.Focused != 0 || len(x.Children) != len(y.Children) {
		return false
	}
	for k, c := range x.Children {
		if c.Ref != "" || y.Children[k].Ref != "" || !sameModuloRef(c, y.Children[k]) {
			return false
		}
	}
	return true
}

// sameChildren reports whether two child lists are the same refs and the
// same unref'd nodes by key, position by position: the common case of a
// part of the page that did not change, aligned without allocating.
func (d *differ) sameChildren(bk, ak []int32) bool {
	for k, c := range bk {
		x, y := d.b.node(c), d.a.node(ak[k])
		if x.Ref != y.Ref || x.Ref == "" && !sameKey(x, y) {
			return false
		}
	}
	return true
}

func unreffed(s *side, is []int32) []int32 {
	var out []int32
	for _, i := range is {
		if s.node(i).Ref == "" {
			out = append(out, i)
		}
	}
	return out
}

// alignGap matches the unref'd nodes between two anchors: common prefix and
// suffix, then an LCS on the key when small enough, then by position.
func (d *differ) alignGap(ub, ua []int32) {
	same := func(x, y int32) bool { return sameKey(d.b.node(x), d.a.node(y)) }
	for len(ub) > 0 && len(ua) > 0 && same(ub[0], ua[0]) {
		d.pair(ub[0], ua[0])
		ub, ua = ub[1:], ua[1:]
	}
	for len(ub) > 0 && len(ua) > 0 && same(ub[len(ub)-1], ua[len(ua)-1]) {
		d.pair(ub[len(ub)-1], ua[len(ua)-1])
		ub, ua = ub[:len(ub)-1], ua[:len(ua)-1]
	}
	if len(ub) == 0 || len(ua) == 0 {
		return
	}
	if len(ub)*len(ua) > maxLCS {
		d.byPosition(ub, ua)
		return
	}
	kb, ka := keys(d.b, d.a, ub), keys(d.a, d.b, ua)
	// l[i][j] is the LCS length of kb[i:] and ka[j:].
	w := len(ka) + 1
	l := make([]int32, (len(kb)+1)*w)
	for i := len(kb) - 1; i >= 0; i-- {
		for j := len(ka) - 1; j >= 0; j-- {
			if kb[i] == ka[j] {
				l[i*w+j] = l[(i+1)*w+j+1] + 1
			} else {
				l[i*w+j] = max(l[(i+1)*w+j], l[i*w+j+1])
			}
		}
	}
	i, j, si, sj := 0, 0, 0, 0
	for i < len(kb) && j < len(ka) {
		switch {
		case kb[i] == ka[j]:
			d.byPosition(ub[si:i], ua[sj:j])
			d.pair(ub[i], ua[j])
			i, j = i+1, j+1
			si, sj = i, j
		case l[(i+1)*w+j] >= l[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	d.byPosition(ub[si:], ua[sj:])
}

// byPosition pairs the k-th nodes of two lists when they have the same role:
// the same place in the page, with changed text or content. Two unnamed
// items whose texts differ are not paired: another item took the place
// (a filter, a re-rendered list), which reads as one removed and one added,
// not as one item renamed.
func (d *differ) byPosition(ub, ua []int32) {
	for k := range min(len(ub), len(ua)) {
		x, y := d.b.node(ub[k]), d.a.node(ua[k])
		if x.Role != y.Role {
			continue
		}
		if item(x) && item(y) {
			if tx, ty := tree.FirstText(x), tree.FirstText(y); tx != "" && ty != "" && tx != ty {
				continue
			}
		}
		d.pair(ub[k], ua[k])
	}
}

// sameKey reports whether two unref'd nodes look like the same node: same
// role and name, and for unnamed nodes the same first few refs or names
// inside (so unnamed list items holding different text differ).
func sameKey(x, y *tree.Node) bool {
	if x.Role != y.Role || x.Name != y.Name {
		return false
	}
	return x.Name != "" || signature(x) == signature(y)
}

// keys returns the LCS keys of nodes is of side s; other is the other tree.
func keys(s, other *side, is []int32) []string {
	out := make([]string, len(is))
	for k, i := range is {
		n := s.node(i)
		if ref := firstRef(n); ref != "" && other.has(ref) {
			// A container of controls (a cell with buttons) is known by
			// its first control, whatever its name (made of its content)
			// says now — as long as that control is still there.
			out[k] = n.Role + "\x00@" + ref
			continue
		}
		out[k] = n.Role + "\x00" + n.Name
		switch {
		case n.Name != "":
		case item(n):
			// A re-rendered item (its controls are new nodes) is known
			// by its text: the same text is the same item, other text
			// another item.
			out[k] += "\x00" + tree.FirstText(n)
		default:
			out[k] += "\x00" + strconv.FormatUint(signature(n), 36)
		}
	}
	return out
}

// item reports whether n is an unnamed item of a list, tree or table, known
// by its text (tree.FirstText) rather than by its place.
func item(n *tree.Node) bool {
	if n.Name != "" {
		return false
	}
	switch n.Role {
	case "listitem", "treeitem", "row", "article":
		return true
	}
	return false
}

// firstRef returns the first ref in a short walk of n's subtree, or "".
func firstRef(n *tree.Node) string {
	seen := 0
	ref := ""
	tree.Walk(n, func(x *tree.Node) bool {
		if seen++; seen > 32 || ref != "" {
			return false
		}
		if x != n && x.Ref != "" {
			ref = x.Ref
		}
		return true
	})
	return ref
}

// signature identifies an unnamed node by a hash of the first refs or names
// found in a short walk of its subtree. It does not allocate: the fast path
// runs it on every unnamed node of an unchanged page.
func signature(n *tree.Node) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		h ^= 0xff // separator: not a byte of valid UTF-8
		h *= 1099511628211
	}
	seen, found := 0, 0
	tree.Walk(n, func(x *tree.Node) bool {
		if seen++; seen > 32 || found >= 3 {
			return false
		}
		switch {
		case x == n:
		case x.Ref != "":
			add(x.Ref)
			found++
		case x.Name != "":
			add(x.Name)
			found++
		}
		return true
	})
	return h
}

// increasing returns the longest subsequence of pairs whose second elements
// increase (their first elements already do): the anchors that kept their
// relative order. O(n log n).
func increasing(ps [][2]int) [][2]int {
	if len(ps) == 0 {
		return nil
	}
	tails := make([]int, 0, len(ps)) // index into ps of the smallest tail per length
	prev := make([]int, len(ps))
	for i, p := range ps {
		lo, hi := 0, len(tails)
		for lo < hi {
			m := (lo + hi) / 2
			if ps[tails[m]][1] < p[1] {
				lo = m + 1
			} else {
				hi = m
			}
		}
		prev[i] = -1
		if lo > 0 {
			prev[i] = tails[lo-1]
		}
		if lo == len(tails) {
			tails = append(tails, i)
		} else {
			tails[lo] = i
		}
	}
	out := make([][2]int, len(tails))
	for i, k := len(tails)-1, tails[len(tails)-1]; i >= 0; i, k = i-1, prev[k] {
		out[i] = ps[k]
	}
	return out
}
