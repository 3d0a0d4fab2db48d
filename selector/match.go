package selector

import (
	"strings"

	"github.com/canopy-dev/canopy/tree"
)

// Matching is set-based: every expression evaluates to a set of nodes over a
// universe, so every key means the same inside every combinator. Sets are
// sorted slices of positions in document order over all snapshots (snapshot
// by snapshot, each in pre-order), so a node's descendants are the positions
// between it and its end.

// index flattens the snapshots into document order.
type index struct {
	snaps  []*tree.Snapshot
	nodes  []*tree.Node
	parent []int // the parent's position; -1 for a root
	end    []int // one past the node's last descendant
	snap   []int // the node's snapshot
	isRoot []bool
	roots  []int          // the position of each snapshot's root
	hdr    []*tree.Header // the header in force: the snapshot's, or a grafted page's
}

func newIndex(snaps []*tree.Snapshot) *index {
	ix := &index{snaps: snaps}
	for si, s := range snaps {
		if s == nil || s.Root == nil {
			continue
		}
		ix.roots = append(ix.roots, len(ix.nodes))
		ix.add(s.Root, si, -1, &s.Header)
	}
	return ix
}

func (ix *index) add(n *tree.Node, si, parent int, h *tree.Header) {
	if n.Page != nil {
		h = n.Page
	}
	i := len(ix.nodes)
	ix.nodes = append(ix.nodes, n)
	ix.parent = append(ix.parent, parent)
	ix.end = append(ix.end, 0)
	ix.snap = append(ix.snap, si)
	ix.isRoot = append(ix.isRoot, parent < 0)
	ix.hdr = append(ix.hdr, h)
	for _, c := range n.Children {
		if c != nil {
			ix.add(c, si, i, h)
		}
	}
	ix.end[i] = len(ix.nodes)
}

// header is the header in force at i: its snapshot's, or, inside a page
// grafted into a larger tree, the page's.
func (ix *index) header(i int) tree.Header { return *ix.hdr[i] }

// pageRoot says whether i roots a tab's page: a tab snapshot's root or a
// page grafted into a larger tree.
func (ix *index) pageRoot(i int) bool {
	return (ix.isRoot[i] || ix.nodes[i].Page != nil) && ix.header(i).Kind == "tab"
}

// universe is the set an expression is evaluated over. top marks the
// top-level universe, the only one in which a scope-only conj may match a
// snapshot's root.
type universe struct {
	ids []int
	top bool
}

// evaluator evaluates one selector over one index, caching what several
// atoms may need.
type evaluator struct {
	ix       *index
	text     []string // visible text, whitespace-collapsed; valid where textDone
	textLow  []string
	textDone []bool
	cover    map[*atom][]bool // window:/app: nodes inside a matching scope
}

// eval returns the positions sel matches in ix, in document order.
func eval(ix *index, sel *Selector) []int {
	ev := &evaluator{ix: ix, cover: map[*atom][]bool{}}
	top := make([]int, 0, len(ix.nodes))
	for i := range ix.nodes {
		if !ix.isRoot[i] {
			top = append(top, i)
		}
	}
	return ev.chain(sel.root, universe{ids: top, top: true})
}

// Match returns every node sel matches in snaps, in document order, whether
// or not it has a ref: for extraction, waits and counts. A scope-only
// selector (tab:2, url:…) may return a snapshot's root. Actions use
// [Resolve]; the find tool uses [Find].
func Match(snaps []*tree.Snapshot, sel *Selector) []*tree.Node {
	ix := newIndex(snaps)
	var out []*tree.Node
	for _, i := range eval(ix, sel) {
		out = append(out, ix.nodes[i])
	}
	return out
}

func (ev *evaluator) chain(c *chain, u universe) []int {
	cur := ev.alt(c.steps[0], u)
	for _, step := range c.steps[1:] {
		cur = ev.alt(step, universe{ids: ev.descendants(cur)})
	}
	return cur
}

func (ev *evaluator) alt(a *alt, u universe) []int {
	out := ev.conj(a.conjs[0], u)
	for _, c := range a.conjs[1:] {
		out = union(out, ev.conj(c, u))
	}
	return out
}

// conj intersects its items, then applies its nth: picks in order. A conj of
// only scope atoms (and nth:) matches the scope nodes themselves.
func (ev *evaluator) conj(c *conj, u universe) []int {
	var rest []unary
	var nths []*atom
	for _, x := range c.items {
		if a, ok := x.(*atom); ok && a.key == keyNth {
			nths = append(nths, a)
		} else {
			rest = append(rest, x)
		}
	}
	var out []int
	if scopeOnly(rest) {
		out = ev.scopes(rest, u)
	} else {
		// Groups first: a parenthesised scope may name a root, which is
		// outside the universe of atoms.
		out = nil
		first := true
		for _, x := range rest {
			if _, ok := x.(*atom); ok {
				continue
			}
			if r := ev.unary(x, u); first {
				out, first = r, false
			} else {
				out = intersect(out, r)
			}
		}
		if first {
			out = u.ids
		}
		// text: last: it is the dearest test, so it sees the fewest nodes.
		for _, last := range []bool{false, true} {
			for _, x := range rest {
				if a, ok := x.(*atom); ok && (a.key == keyText) == last {
					out = ev.filter(out, a)
				}
			}
		}
	}
	for _, a := range nths {
		out = pick(out, a.nth)
	}
	return out
}

func (ev *evaluator) unary(x unary, u universe) []int {
	switch x := x.(type) {
	case *not:
		return minus(u.ids, ev.unary(x.x, u))
	case *paren:
		return ev.chain(x.c, u)
	case *atom:
		if x.key == keyNth {
			return pick(u.ids, x.nth)
		}
		return ev.filter(u.ids, x)
	}
	panic("selector: unknown expression")
}

// filter returns the positions in ids whose node a matches.
func (ev *evaluator) filter(ids []int, a *atom) []int {
	var out []int
	for _, i := range ids {
		if ev.match(a, i) {
			out = append(out, i)
		}
	}
	return out
}

// match reports whether a matches the node at i. window: and app: match
// every node inside a matching window or app; tab: and url: every node of a
// matching tab.
func (ev *evaluator) match(a *atom, i int) bool {
	n := ev.ix.nodes[i]
	switch a.key {
	case keyRef:
		return n.Ref == a.val
	case keyRole:
		if a.op == opRegex {
			return a.re.MatchString(n.Role)
		}
		return contains(a.roles, strings.ToLower(n.Role))
	case keyName:
		if matchString(a, n.Name) {
			return true
		}
		// GTK labels carry a mnemonic underscore ("_Save").
		return strings.ContainsRune(n.Name, '_') && a.op != opRegex && matchString(a, stripMnemonic(n.Name))
	case keyValue:
		return !n.States.Has(tree.Protected) && matchString(a, n.Value)
	case keyID:
		return matchString(a, n.ID)
	case keyText:
		if a.op == opRegex {
			return a.re.MatchString(ev.textOf(i))
		}
		ev.textOf(i)
		return strings.Contains(ev.textLow[i], a.norm)
	case keyState:
		return n.States.Has(a.state) != a.neg
	case keyWindow, keyApp:
		return ev.covered(a)[i]
	case keyTab, keyURL:
		return headerMatch(a, ev.ix.header(i))
	}
	return false
}

// matchString compares s with an atom's value: whole (case-insensitive,
// whitespace-collapsed), substring (likewise), or regex on s as it is.
func matchString(a *atom, s string) bool {
	switch a.op {
	case opRegex:
		return a.re.MatchString(s)
	case opSub:
		return strings.Contains(normText(s), a.norm)
	}
	return normText(s) == a.norm
}

// headerMatch reports whether a tab: or url: atom matches a snapshot header.
// Only browser tabs have titles and URLs to match.
func headerMatch(a *atom, h tree.Header) bool {
	if h.Kind != "tab" {
		return false
	}
	if a.key == keyTab {
		return matchString(a, h.Title) || a.index > 0 && a.op == opEq && h.Index == a.index
	}
	switch {
	case a.op == opRegex:
		return a.re.MatchString(h.URL)
	case a.glob != nil:
		return a.glob.MatchString(h.URL) || a.glob.MatchString(trimScheme(h.URL))
	}
	return strings.Contains(strings.ToLower(h.URL), a.norm)
}

// trimScheme drops the scheme, so `url:"example.com/*"` matches
// https://example.com/a.
func trimScheme(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		return u[i+3:]
	}
	return u
}

// stripMnemonic removes GTK mnemonic underscores: "_Save" reads "Save", "__"
// reads "_".
func stripMnemonic(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		if rs[i] == '_' && i+1 < len(rs) {
			i++
		}
		b.WriteRune(rs[i])
	}
	return b.String()
}

// isWindow reports whether role is a top-level window for window:.
func isWindow(role string) bool {
	switch strings.ToLower(role) {
	case "window", "dialog", "alertdialog":
		return true
	}
	return false
}

// isApp reports whether role is an application for app:.
func isApp(role string) bool { return strings.EqualFold(role, "application") }

// scopeOnly reports whether items are all scope atoms (at least one).
func scopeOnly(items []unary) bool {
	for _, x := range items {
		if a, ok := x.(*atom); !ok || !scopeKeys[a.key] {
			return false
		}
	}
	return len(items) > 0
}

// The kinds of scope node.
const (
	scopeNone = iota
	scopeWindow
	scopeApp
	scopeTab
)

// kindOf returns the kind of scope node an atom's key names.
func kindOf(a *atom) int {
	switch a.key {
	case keyWindow:
		return scopeWindow
	case keyApp:
		return scopeApp
	}
	return scopeTab
}

// selfKind returns the kind of scope node at i, or scopeNone.
func (ev *evaluator) selfKind(i int) int {
	n := ev.ix.nodes[i]
	switch {
	case ev.ix.pageRoot(i):
		return scopeTab
	case isWindow(n.Role) || ev.ix.isRoot[i] && ev.ix.header(i).Kind == "window":
		return scopeWindow
	case isApp(n.Role):
		return scopeApp
	}
	return scopeNone
}

// selfMatch reports whether a window: or app: atom matches the scope node at
// i by its own name (a window snapshot's root also by its title).
func (ev *evaluator) selfMatch(a *atom, i int) bool {
	if a.key == keyTab || a.key == keyURL {
		return headerMatch(a, ev.ix.header(i))
	}
	if matchString(a, ev.ix.nodes[i].Name) {
		return true
	}
	h := ev.ix.header(i)
	return ev.ix.isRoot[i] && h.Kind == "window" && matchString(a, h.Title)
}

// scopes evaluates a scope-only conj: the scope nodes themselves — windows
// for window:, apps for app:, and (in the top-level universe) tab roots for
// tab: and url: — that match the atoms of their own kind by themselves and
// every other atom as any node would ("app:gedit window:Save" is the Save
// window inside gedit).
func (ev *evaluator) scopes(items []unary, u universe) []int {
	cands := u.ids
	if u.top {
		cands = union(cands, ev.ix.roots)
	}
	var out []int
	for _, i := range cands {
		kind := ev.selfKind(i)
		if kind == scopeNone {
			continue
		}
		own, ok := false, true
		for _, x := range items {
			a := x.(*atom)
			if kindOf(a) == kind {
				own = true
				ok = ev.selfMatch(a, i)
			} else {
				ok = ev.match(a, i)
			}
			if !ok {
				break
			}
		}
		if own && ok {
			out = append(out, i)
		}
	}
	return out
}

// covered returns, for a window: or app: atom, which nodes lie inside (or
// are) a matching window or app.
func (ev *evaluator) covered(a *atom) []bool {
	if c, ok := ev.cover[a]; ok {
		return c
	}
	ix := ev.ix
	c := make([]bool, len(ix.nodes))
	for i := 0; i < len(ix.nodes); i++ {
		if c[i] {
			continue
		}
		n := ix.nodes[i]
		var hit bool
		if a.key == keyWindow {
			hit = isWindow(n.Role) && matchString(a, n.Name) ||
				ix.isRoot[i] && ix.header(i).Kind == "window" && matchString(a, ix.header(i).Title)
		} else {
			hit = isApp(n.Role) && matchString(a, n.Name)
		}
		if hit {
			for j := i; j < ix.end[i]; j++ {
				c[j] = true
			}
		}
	}
	ev.cover[a] = c
	return c
}

// textOf returns the visible text of the node at i: its name (unless
// borrowed from the text beside it, [tree.Node.Borrowed]), its value unless
// protected, and the same of every descendant, whitespace-collapsed.
func (ev *evaluator) textOf(i int) string {
	if ev.textDone == nil {
		n := len(ev.ix.nodes)
		ev.text, ev.textLow, ev.textDone = make([]string, n), make([]string, n), make([]bool, n)
	}
	if ev.textDone[i] {
		return ev.text[i]
	}
	n := ev.ix.nodes[i]
	var b strings.Builder
	if !n.Borrowed {
		// A borrowed name is the text beside the node, matched there.
		b.WriteString(n.Name)
	}
	if n.Value != "" && !n.States.Has(tree.Protected) {
		b.WriteByte(' ')
		b.WriteString(n.Value)
	}
	for j := i + 1; j < ev.ix.end[i]; j = ev.ix.end[j] {
		b.WriteByte(' ')
		b.WriteString(ev.textOf(j))
	}
	t := tree.CollapseSpace(b.String())
	ev.text[i], ev.textLow[i], ev.textDone[i] = t, strings.ToLower(t), true
	return t
}

// descendants returns the strict descendants of the nodes in ids.
func (ev *evaluator) descendants(ids []int) []int {
	var out []int
	done := 0 // positions below this are already in out
	for _, i := range ids {
		from, to := max(i+1, done), ev.ix.end[i]
		for j := from; j < to; j++ {
			out = append(out, j)
		}
		done = max(done, to)
	}
	return out
}

// pick returns the n-th of ids (1-based; negative counts from the end), or
// nothing when out of range.
func pick(ids []int, n int) []int {
	if n < 0 {
		n += len(ids) + 1
	}
	if n < 1 || n > len(ids) {
		return nil
	}
	return []int{ids[n-1]}
}

// union, intersect and minus combine sorted sets.
func union(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func intersect(a, b []int) []int {
	var out []int
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func minus(a, b []int) []int {
	var out []int
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}
