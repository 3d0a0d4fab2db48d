package shell

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/tree"
)

// where says what kind of folder a loc is.
type where int

const (
	atRoot where = iota // "/": the tabs and, with the desktop, the apps
	atTabs              // "/tabs": the tabs by number
	atApps              // "/apps": the desktop's applications
	atTab               // "/tab2": a tab's page
	atNode              // a node of a page or of the desktop
)

// loc is one place a path names.
type loc struct {
	at   where
	tab  int        // atTab: which tab
	node *tree.Node // atTab: the page's root; atNode: the node
}

// view is the workspace as one command sees it: the snapshot it read,
// and what the paths need to know about it.
type view struct {
	sh      *Shell
	ctx     context.Context
	snap    *tree.Snapshot
	desktop bool
	active  int                       // the tab the page is from (0: none)
	pages   map[int]*tree.Node        // tab number → its page's root, for the tabs read
	parent  map[*tree.Node]*tree.Node // as the listing nests them
	segs    map[*tree.Node]string     // canonical segments, once computed
	tabs    []tabEntry                // the tab list, once asked
}

// tabEntry is one line of `tabs list`.
type tabEntry struct {
	n       int
	line    string // `tab 2 "Help" 127.0.0.1:8080/help current`
	current bool
}

// read reads the workspace through the executor (a snapshot action: the
// gate and the audit log see it).
func (sh *Shell) read(ctx context.Context) (*view, error) {
	snap, err := sh.sess.Model(ctx, action.Action{Kind: action.Snapshot, Full: true})
	if err != nil {
		return nil, err
	}
	v := &view{sh: sh, ctx: ctx, snap: snap, pages: map[int]*tree.Node{},
		parent: map[*tree.Node]*tree.Node{}, segs: map[*tree.Node]string{}}
	v.desktop = snap.Header.Kind == "desktop"
	if !v.desktop && snap.Root != nil {
		v.active = max(snap.Header.Index, 1)
		v.pages[v.active] = snap.Root
	}
	var walk func(n *tree.Node)
	walk = func(n *tree.Node) {
		if n.Page != nil && n.Page.Kind == "tab" {
			v.pages[max(n.Page.Index, 1)] = n
			v.active = max(n.Page.Index, 1)
		}
		for _, c := range tree.Listed(n) {
			v.parent[c] = n
			walk(c)
		}
	}
	if snap.Root != nil {
		walk(snap.Root)
	}
	return v, nil
}

// tabList returns the tabs: on a browser, what `tabs list` says (through
// the executor); on the desktop, the pages its tree holds.
func (v *view) tabList() ([]tabEntry, error) {
	if v.tabs != nil || v.desktop {
		if v.desktop && v.tabs == nil {
			for n, p := range v.pages {
				h := *p.Page
				v.tabs = append(v.tabs, tabEntry{n: n, line: h.Line() + " current", current: true})
			}
			sort.Slice(v.tabs, func(i, j int) bool { return v.tabs[i].n < v.tabs[j].n })
		}
		return v.tabs, nil
	}
	r, err := v.sh.sess.Run(v.ctx, action.Action{Kind: action.Tabs, Nav: "list"})
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(r.Text), "\n") {
		m := tabLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		v.tabs = append(v.tabs, tabEntry{n: n, line: line, current: strings.HasSuffix(line, " current")})
	}
	return v.tabs, nil
}

var tabLine = regexp.MustCompile(`^tab (\d+) `)

// notActive is a path into a tab other than the one the session reads.
type notActive struct{ tab int }

func (e *notActive) Error() string {
	return fmt.Sprintf("tab %d is not the active tab: cd /tab%d switches to it", e.tab, e.tab)
}

// maxSegment is the longest name a segment shows; a longer one ends in "…".
const maxSegment = 40

// base is a node's segment before look-alikes are told apart: its role,
// then ':' and its name when it has one; an application on the desktop
// by its name alone.
func (v *view) base(n *tree.Node) string {
	name := tree.CollapseSpace(n.Name)
	if name == "" {
		name = tree.CollapseSpace(n.Hint)
	}
	if v.desktop && v.parent[n] == v.snap.Root && name != "" {
		return escapeWhole(cut(name))
	}
	if name == "" {
		return n.Role
	}
	return n.Role + ":" + escape(cut(name))
}

// segment is a node's canonical segment: its base, and `@ref` when a
// sibling has the same base. A ref never shifts as a position would.
func (v *view) segment(n *tree.Node) string {
	if s, ok := v.segs[n]; ok {
		return s
	}
	p := v.parent[n]
	if p == nil {
		return v.base(n)
	}
	kids := tree.Listed(p)
	groups := map[string][]*tree.Node{}
	for _, k := range kids {
		b := v.base(k)
		groups[b] = append(groups[b], k)
	}
	for b, g := range groups {
		if len(g) == 1 {
			v.segs[g[0]] = b
			continue
		}
		v.sh.sess.Mint(g...)
		for _, k := range g {
			if k.Ref != "" {
				v.segs[k] = b + "@" + k.Ref
			} else {
				v.segs[k] = b
			}
		}
	}
	return v.segs[n]
}

// cut shortens a name to maxSegment runes, ending in "…".
func cut(s string) string {
	rs := []rune(s)
	if len(rs) <= maxSegment {
		return s
	}
	return string(rs[:maxSegment-1]) + "…"
}

// pathOf is the canonical path of a loc.
func (v *view) pathOf(l loc) string {
	switch l.at {
	case atRoot:
		return "/"
	case atTabs:
		return "/tabs"
	case atApps:
		return "/apps"
	case atTab:
		return "/tab" + strconv.Itoa(l.tab)
	}
	var segs []string
	for n := l.node; n != nil; n = v.parent[n] {
		if n.Page != nil && n.Page.Kind == "tab" || (!v.desktop && n == v.snap.Root) {
			return "/tab" + strconv.Itoa(v.tabOf(n)) + join(segs)
		}
		if n == v.snap.Root {
			return "/apps" + join(segs)
		}
		segs = append(segs, v.segment(n))
	}
	return join(segs)
}

// tabOf is the tab number of a page's root.
func (v *view) tabOf(page *tree.Node) int {
	for n, p := range v.pages {
		if p == page {
			return n
		}
	}
	return v.active
}

// join makes an absolute path of segments gathered leaf first.
func join(segsLeafFirst []string) string {
	var b strings.Builder
	for i := len(segsLeafFirst) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(segsLeafFirst[i])
	}
	return b.String()
}

// split cuts an absolute or relative path into clean segments.
func split(cwd, p string) []string {
	if !strings.HasPrefix(p, "/") {
		p = cwd + "/" + p
	}
	var out []string
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
		}
	}
	return out
}

// resolve returns the places a path names: one, or several for a glob
// (`link:*`). A ref is a path too (`e14`), and so is a line find, grep or
// ls -l printed, by the ref canopy wrote in it (readLine). Whether a
// word is a line or a path is told by its shape, never by trying one and
// then the other: a page could name a node so that a line of it reads as
// a path to another.
func (v *view) resolve(cwd, p string) ([]loc, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		p = "."
	}
	if selector.IsRef(p) {
		return v.byRef(strings.TrimPrefix(p, "@"))
	}
	if lineShaped(p) {
		what, err := readLine(p)
		switch {
		case err != nil:
			return nil, err
		case what.ref == "":
			return v.tab(what.tab)
		}
		return v.byRef(what.ref)
	}
	return v.walk(split(cwd, p))
}

// byRef finds the node a ref names in the tree read.
func (v *view) byRef(ref string) ([]loc, error) {
	if v.snap.Root != nil {
		if n := tree.FindRef(v.snap.Root, ref); n != nil {
			if n == v.snap.Root || (n.Page != nil && n.Page.Kind == "tab") {
				return []loc{{at: atTab, tab: v.tabOf(n), node: n}}, nil
			}
			return []loc{{at: atNode, node: n}}, nil
		}
	}
	return nil, fmt.Errorf("no node %s here (a ref of a page that was replaced names nothing; ls shows what is here)", ref)
}

// walk follows clean segments from the root.
func (v *view) walk(segs []string) ([]loc, error) {
	cur := []loc{{at: atRoot}}
	for i, s := range segs {
		var next []loc
		for _, l := range cur {
			ls, err := v.step(l, s)
			if err != nil {
				if len(cur) > 1 {
					continue // a glob's branch without this child
				}
				return nil, fmt.Errorf("%s: %w", oneLine("/"+strings.Join(segs[:i+1], "/")), err)
			}
			next = append(next, ls...)
		}
		if len(next) == 0 {
			return nil, fmt.Errorf("%s: no such node", oneLine("/"+strings.Join(segs[:i+1], "/")))
		}
		cur = next
	}
	return cur, nil
}

// step goes from l into its child seg.
func (v *view) step(l loc, seg string) ([]loc, error) {
	if selector.IsRef(seg) {
		return v.byRef(strings.TrimPrefix(seg, "@"))
	}
	switch l.at {
	case atRoot:
		switch {
		case seg == "tabs":
			return []loc{{at: atTabs}}, nil
		case seg == "apps" && v.desktop:
			return []loc{{at: atApps}}, nil
		case strings.HasPrefix(seg, "tab"):
			if n, err := strconv.Atoi(seg[3:]); err == nil {
				return v.tab(n)
			}
		}
		return nil, v.noEntry(seg, v.rootEntries())
	case atTabs:
		if n, err := strconv.Atoi(seg); err == nil {
			return v.tab(n)
		}
		return nil, fmt.Errorf("no tab %q: tabs are numbered (/tabs/2, or /tab2)", seg)
	case atApps:
		return v.child(v.snap.Root, seg)
	}
	return v.child(l.node, seg)
}

// tab is the loc of tab n; a tab other than the active one is an error
// the callers that switch tabs (cd, each tab) catch.
func (v *view) tab(n int) ([]loc, error) {
	if p, ok := v.pages[n]; ok {
		return []loc{{at: atTab, tab: n, node: p}}, nil
	}
	tabs, err := v.tabList()
	if err != nil {
		return nil, err
	}
	for _, t := range tabs {
		if t.n == n {
			return nil, &notActive{tab: n}
		}
	}
	return nil, fmt.Errorf("no tab %d (ls / lists the tabs)", n)
}

// rootEntries are the root folder's names.
func (v *view) rootEntries() []string {
	var out []string
	if tabs, err := v.tabList(); err == nil {
		for _, t := range tabs {
			out = append(out, "tab"+strconv.Itoa(t.n))
		}
	}
	if v.desktop {
		out = append(out, "apps")
	}
	return out
}

// child finds the children of n that seg names: by canonical segment, by
// role and whole name (any case), by role alone when one child has it, by
// `@ref`, or by a glob pattern. The segment is read before it is
// unescaped: a name's '@', '/' and glob characters are escaped where a
// path is printed, so they never read as a ref, a folder or a pattern.
func (v *view) child(n *tree.Node, seg string) ([]loc, error) {
	if n == nil {
		return nil, fmt.Errorf("nothing here")
	}
	kids := tree.Listed(n)
	for _, k := range kids {
		v.parent[k] = n
	}
	raw := seg
	for _, k := range kids {
		if v.segment(k) == raw { // as ls printed it
			return []loc{{at: atNode, node: k}}, nil
		}
	}
	esc, ref := splitRef(raw)
	if ref != "" {
		for _, k := range kids {
			if k.Ref != ref {
				continue
			}
			// The name before the ref must be the node's: a ref is no
			// way around the name it follows.
			if !sameSegment(unescape(v.base(k)), unescape(esc), k) && !strings.EqualFold(esc, k.Role) {
				return nil, fmt.Errorf("%q: %s is %s here, not %s", raw, ref, v.segment(k), esc)
			}
			return []loc{{at: atNode, node: k}}, nil
		}
	}
	if strings.ContainsAny(esc, "*[") {
		// A glob; '?' is a wildcard only inside one, so a name's '?'
		// (link:Forgot password?) needs no escaping.
		pat := strings.ToLower(esc)
		var out []loc
		for _, k := range kids {
			s := strings.ToLower(v.segment(k))
			ok, err := path.Match(pat, s)
			if err != nil {
				return nil, fmt.Errorf("bad pattern %q: %w", raw, err)
			}
			if !ok {
				ok, _ = path.Match(pat, unescape(s))
			}
			if ok {
				out = append(out, loc{at: atNode, node: k})
			}
		}
		if len(out) == 0 {
			return nil, v.noEntry(raw, v.names(kids))
		}
		return out, nil
	}
	seg = unescape(esc)
	for _, try := range []func(*tree.Node) bool{
		func(k *tree.Node) bool { return sameSegment(unescape(v.base(k)), seg, k) },
		func(k *tree.Node) bool { return strings.EqualFold(k.Role, seg) },
	} {
		var hits []*tree.Node
		for _, k := range kids {
			if try(k) {
				hits = append(hits, k)
			}
		}
		switch {
		case len(hits) == 1:
			return []loc{{at: atNode, node: hits[0]}}, nil
		case len(hits) > 1:
			return nil, fmt.Errorf("%q names %d nodes: %s", raw, len(hits), strings.Join(v.names(hits), ", "))
		}
	}
	if deeper := v.below(n, seg); len(deeper) > 0 {
		return nil, fmt.Errorf("no %q here; deeper: %s", raw, strings.Join(deeper, ", "))
	}
	return nil, v.noEntry(raw, v.names(kids))
}

// below finds nodes further down that a segment names, by their paths:
// `click button:Save` from the page's root finds main/form:Edit/button:Save.
func (v *view) below(n *tree.Node, seg string) []string {
	var out []string
	var walk func(p *tree.Node, depth int)
	walk = func(p *tree.Node, depth int) {
		for _, k := range tree.Listed(p) {
			v.parent[k] = p
			if len(out) == 3 {
				return
			}
			if depth > 0 && sameSegment(unescape(v.base(k)), seg, k) {
				out = append(out, v.pathOf(loc{at: atNode, node: k}))
			}
			walk(k, depth+1)
		}
	}
	walk(n, 0)
	return out
}

// sameSegment compares a typed segment with a node's base, forgiving case
// and spacing, and accepting the whole name where the base cut it.
func sameSegment(base, typed string, n *tree.Node) bool {
	if strings.EqualFold(base, typed) {
		return true
	}
	role, name, ok := strings.Cut(typed, ":")
	if !ok || !strings.EqualFold(role, n.Role) {
		return false
	}
	return strings.EqualFold(tree.CollapseSpace(name), tree.CollapseSpace(n.Name))
}

// names are the canonical segments of nodes.
func (v *view) names(ns []*tree.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = v.segment(n)
	}
	return out
}

// noEntry says a segment names nothing, with the closest names there.
func (v *view) noEntry(seg string, have []string) error {
	if len(have) == 0 {
		return fmt.Errorf("no %q: this folder is empty", seg)
	}
	return fmt.Errorf("no %q here; closest: %s", seg, strings.Join(closest(seg, have, 5), ", "))
}

// closest returns up to k of names nearest to s: those that contain it or
// share its role first, then by edit distance.
func closest(s string, names []string, k int) []string {
	ls := strings.ToLower(s)
	type scored struct {
		name  string
		score int
	}
	var all []scored
	for _, n := range names {
		ln := strings.ToLower(n)
		d := selector.EditDistance(ls, ln)
		if strings.Contains(ln, ls) || strings.Contains(ls, ln) {
			d -= 1000
		}
		all = append(all, scored{n, d})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score < all[j].score })
	var out []string
	for i := 0; i < len(all) && i < k; i++ {
		out = append(out, all[i].name)
	}
	return out
}
