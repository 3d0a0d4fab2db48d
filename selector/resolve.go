package selector

import (
	"sort"
	"strings"
	"unicode"

	"github.com/canopy-dev/canopy/tree"
)

// Hit is a node a selector matched, with where it sits when that tells it
// apart from other hits that print the same: `row "john@example.com"`.
type Hit struct {
	Node *tree.Node
	// Context is the nearest telling ancestor (a row, list item, article,
	// form… by its name or first text), set only when another hit prints
	// the same line, e.g. two `button "Edit"`.
	Context string
}

// Find returns the nodes an action could target that sel matches in snaps,
// in document order: the candidates an action would choose among, for the
// find tool. Any node with an identity counts, printed with a ref or not (a
// heading, a line of text, a list item); when matches are nested (text:
// matches a row and the cell inside it) only the innermost is kept, since
// it is the one meant.
func Find(snaps []*tree.Snapshot, sel *Selector) []*tree.Node {
	var out []*tree.Node
	for _, h := range FindHits(snaps, sel) {
		out = append(out, h.Node)
	}
	return out
}

// FindHits is [Find] with each hit's context, so that a list of look-alike
// nodes can be told apart.
func FindHits(snaps []*tree.Snapshot, sel *Selector) []Hit {
	ix := newIndex(snaps)
	return ix.hits(candidates(ix, sel))
}

// Resolve is strict resolution for actions: sel must match exactly one node
// (as Find counts them), which is returned with its snapshot. Zero matches
// give a *NoMatchError naming the closest candidates; several give an
// *AmbiguousError listing them with their context.
func Resolve(snaps []*tree.Snapshot, sel *Selector) (*tree.Node, *tree.Snapshot, error) {
	ix := newIndex(snaps)
	cands := candidates(ix, sel)
	switch len(cands) {
	case 1:
		i := cands[0]
		return ix.nodes[i], ix.snaps[ix.snap[i]], nil
	case 0:
		return nil, nil, &NoMatchError{Selector: sel.String(), Closest: closest(ix, sel)}
	}
	return nil, nil, &AmbiguousError{Selector: sel.String(), Matches: ix.hits(cands)}
}

// targetable reports whether the node at i can be acted on or named: it has
// a ref, or an identity a ref can be minted for. Roots and the placeholders
// of unread content cannot.
func (ix *index) targetable(i int) bool {
	n := ix.nodes[i]
	return !ix.isRoot[i] && n.Role != tree.RoleUnread && (n.Ref != "" || n.Key != "")
}

// candidates returns the positions of the matched nodes an action could
// target, innermost only where matches are nested.
func candidates(ix *index, sel *Selector) []int {
	var out []int
	for _, i := range eval(ix, sel) {
		if ix.targetable(i) {
			out = append(out, i)
		}
	}
	kept := out[:0]
	for k, i := range out {
		// Sorted in document order: a descendant match, if any, is next.
		if k+1 < len(out) && out[k+1] < ix.end[i] {
			continue
		}
		kept = append(kept, i)
	}
	return kept
}

// want is what a selector asks for, for ranking near misses.
type want struct {
	roles []string
	names []string // normalised name:/text: values
	vals  []string // normalised value: values
	ids   []string // normalised id: values
}

// wants collects the roles and strings of the atoms of the selector's last
// step (the target; earlier steps are scopes) that are not negated.
func wants(sel *Selector) want {
	var w want
	steps := sel.root.steps
	var walk func(x any)
	walk = func(x any) {
		switch x := x.(type) {
		case *chain:
			for _, s := range x.steps {
				walk(s)
			}
		case *alt:
			for _, c := range x.conjs {
				walk(c)
			}
		case *conj:
			for _, u := range x.items {
				walk(u)
			}
		case *paren:
			walk(x.c)
		case *atom:
			if x.op == opRegex {
				return
			}
			switch x.key {
			case keyRole:
				w.roles = append(w.roles, x.roles...)
			case keyName, keyText:
				w.names = append(w.names, x.norm)
			case keyValue:
				w.vals = append(w.vals, x.norm)
			case keyID:
				w.ids = append(w.ids, x.norm)
			}
		}
	}
	walk(steps[len(steps)-1])
	return w
}

// closeName is the similarity from which a name counts as a near miss.
const closeName = 0.55

// closest ranks the nodes an action could target by how much they look like what sel
// asks for: the role, and the similarity of the name (or value, or id) to the
// values given. Nodes with a similar name come first, best first; when none
// has one, nodes of the wanted role are listed in document order.
func closest(ix *index, sel *Selector) []Hit {
	w := wants(sel)
	if len(w.roles)+len(w.names)+len(w.vals)+len(w.ids) == 0 {
		return nil
	}
	type scored struct {
		i     int
		score float64
	}
	var near, sameRole []scored
	for i, n := range ix.nodes {
		if !ix.targetable(i) || n.Role == tree.RoleText && len(w.roles) > 0 && !contains(w.roles, tree.RoleText) {
			continue
		}
		role := contains(w.roles, strings.ToLower(n.Role))
		sim := 0.0
		for _, v := range w.names {
			sim = max(sim, similarity(normText(n.Name), v))
		}
		for _, v := range w.vals {
			if !n.States.Has(tree.Protected) {
				sim = max(sim, similarity(normText(n.Value), v))
			}
		}
		for _, v := range w.ids {
			sim = max(sim, similarity(normText(n.ID), v))
		}
		switch {
		case sim >= closeName:
			if role {
				sim += 0.5
			}
			near = append(near, scored{i, sim})
		case role:
			sameRole = append(sameRole, scored{i, 0})
		}
	}
	if len(near) == 0 {
		near = sameRole
	}
	sort.SliceStable(near, func(a, b int) bool { return near[a].score > near[b].score })
	var ids []int
	for _, s := range near[:min(len(near), maxClosest)] {
		ids = append(ids, s.i)
	}
	return ix.hits(ids)
}

// maxCompare bounds the runes compared when ranking, so that a long text
// does not cost a quadratic edit distance.
const maxCompare = 120

// similarity of two normalised strings in [0, 1]: the best of their edit
// similarity, their word overlap, and containment of one in the other.
func similarity(a, b string) float64 {
	if a == "" || b == "" {
		return 0
	}
	if a == b {
		return 1
	}
	ra, rb := []rune(a), []rune(b)
	la, lb := min(len(ra), maxCompare), min(len(rb), maxCompare)
	best := 1 - float64(EditDistance(string(ra[:la]), string(rb[:lb])))/float64(max(la, lb))
	if strings.Contains(a, b) || strings.Contains(b, a) {
		short, long := min(len(ra), len(rb)), max(len(ra), len(rb))
		best = max(best, 0.6+0.4*float64(short)/float64(long))
	}
	return max(best, overlap(a, b))
}

// overlap is the Jaccard overlap of the words of a and b.
func overlap(a, b string) float64 {
	split := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			m[w] = true
		}
		return m
	}
	wa, wb := split(a), split(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	both := 0
	for w := range wa {
		if wb[w] {
			both++
		}
	}
	return float64(both) / float64(len(wa)+len(wb)-both)
}
