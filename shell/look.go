package shell

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// shellMore is how the shell says to see what a tree left out.
var shellMore = tree.More{
	Scope: func(ref string) string { return "ls " + ref },
	Whole: "ls a folder",
	Rest:  "tree DEPTH PATH, or cd a ref above",
}

// cwdPath is the working folder: the one cd set, or by default the active
// tab's root (the root folder on the desktop).
func (c *call) cwdPath(v *view) string {
	if c.sh.cwd != "" {
		return c.sh.cwd
	}
	if v.desktop || v.active == 0 {
		return "/"
	}
	return "/tab" + strconv.Itoa(v.active)
}

// locate resolves a path against the working folder. When the working
// folder's path names nothing any more but its node is still there (it
// was renamed), the folder follows the node.
func (c *call) locate(p string) ([]loc, error) {
	v, err := c.view()
	if err != nil {
		return nil, err
	}
	cwd := c.cwdPath(v)
	locs, err := v.resolve(cwd, p)
	if err == nil || strings.HasPrefix(p, "/") || c.sh.cwdRef == "" {
		return locs, err
	}
	if here, rerr := v.byRef(c.sh.cwdRef); rerr == nil {
		if moved := v.pathOf(here[0]); moved != cwd {
			c.sh.cwd = moved
			return v.resolve(moved, p)
		}
	}
	return nil, err
}

// locateOne resolves a path that must name one place.
func (c *call) locateOne(p string) (loc, error) {
	locs, err := c.locate(p)
	if err != nil {
		return loc{}, err
	}
	if len(locs) > 1 {
		var names []string
		for _, l := range locs {
			names = append(names, c.v.pathOf(l))
		}
		return loc{}, fmt.Errorf("%q names %d nodes: %s", p, len(locs), strings.Join(names, ", "))
	}
	return locs[0], nil
}

// entries are what a folder lists: each name, and its tree line for -l.
func (c *call) entries(l loc) (names, lines []string, err error) {
	v := c.v
	switch l.at {
	case atRoot, atTabs:
		tabs, err := v.tabList()
		if err != nil {
			return nil, nil, err
		}
		for _, t := range tabs {
			name := "tab" + strconv.Itoa(t.n) + "/"
			if l.at == atTabs {
				name = strconv.Itoa(t.n) + "/"
			}
			names, lines = append(names, name), append(lines, t.line)
		}
		if l.at == atRoot && v.desktop {
			names, lines = append(names, "apps/"), append(lines, "apps/")
		}
		return names, lines, nil
	case atApps:
		l.node = v.snap.Root
	}
	kids := tree.Listed(l.node)
	for _, k := range kids {
		v.parent[k] = l.node
	}
	for _, k := range kids {
		name, line := v.segment(k), tree.Line(k)
		if n := len(tree.Listed(k)); n > 0 {
			name += "/"
			line += " (" + strconv.Itoa(tree.Count(k)-1) + " inside)"
		}
		names, lines = append(names, name), append(lines, line)
	}
	return names, lines, nil
}

func (c *call) ls() error {
	fl, args, err := c.flags("-l")
	if err != nil {
		return err
	}
	_, long := fl["-l"]
	paths := vals(args)
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for i, p := range paths {
		locs, err := c.locate(p)
		if err != nil {
			return err
		}
		for j, l := range locs {
			if len(paths) > 1 || len(locs) > 1 {
				if i+j > 0 {
					c.println("")
				}
				c.println(c.v.pathOf(l) + ":")
			}
			if l.at == atNode && len(tree.Listed(l.node)) == 0 {
				// A leaf lists as itself, as ls lists a file.
				if long {
					c.println(tree.Line(l.node))
				} else {
					c.println(c.v.segment(l.node))
				}
				continue
			}
			names, lines, err := c.entries(l)
			if err != nil {
				return err
			}
			if long {
				c.println(lines...)
			} else {
				c.println(names...)
			}
		}
	}
	return nil
}

func (c *call) pwd() error {
	v, err := c.view()
	if err != nil {
		return err
	}
	c.println(c.cwdPath(v))
	return nil
}

func (c *call) cd() error {
	if len(c.args) > 1 {
		return fmt.Errorf("cd takes one path")
	}
	v, err := c.view()
	if err != nil {
		return err
	}
	if len(c.args) == 0 {
		c.sh.cwd, c.sh.cwdRef = "", ""
		return nil
	}
	p := c.args[0].val
	l, err := c.locateOne(p)
	var other *notActive
	if errors.As(err, &other) {
		// Into another tab: switching is an action (the act tier).
		if _, err := c.sh.sess.Run(c.ctx, action.Action{Kind: action.Tabs, Nav: "switch", Tab: other.tab}); err != nil {
			return err
		}
		c.v = nil
		if v, err = c.view(); err != nil {
			return err
		}
		l, err = c.locateOne(p)
	}
	if err != nil {
		return err
	}
	c.sh.cwd, c.sh.cwdRef = v.pathOf(l), ""
	if l.at == atNode {
		c.sh.sess.Mint(l.node)
		c.sh.cwdRef = l.node.Ref
	}
	return nil
}

func (c *call) tree() error {
	args := vals(c.args)
	depth := 0
	if len(args) > 0 {
		if n, err := strconv.Atoi(args[0]); err == nil {
			if n < 1 {
				return fmt.Errorf("tree's DEPTH is 1 or more")
			}
			depth, args = n, args[1:]
		}
	}
	if len(args) > 1 {
		return fmt.Errorf("usage: %s", builtins["tree"].usage)
	}
	p := "."
	if len(args) == 1 {
		p = args[0]
	}
	l, err := c.locateOne(p)
	if err != nil {
		return err
	}
	snap, err := c.scope(l)
	if err != nil {
		return err
	}
	if snap == nil { // the root or /tabs on a browser: the tab list
		_, lines, err := c.entries(l)
		c.println(lines...)
		return err
	}
	text := tree.Format(snap, tree.Options{Depth: depth, More: &shellMore})
	c.println(strings.TrimSuffix(text, "\n"))
	return nil
}

// scope is the snapshot a loc stands for: a tab's page, a node's subtree,
// or the whole desktop; nil for the folders of tabs.
func (c *call) scope(l loc) (*tree.Snapshot, error) {
	v := c.v
	switch l.at {
	case atRoot, atApps:
		if v.desktop {
			return v.snap, nil
		}
		return nil, nil
	case atTabs:
		return nil, nil
	case atTab:
		if l.node == v.snap.Root {
			return v.snap, nil
		}
		return &tree.Snapshot{Header: *l.node.Page, Root: l.node}, nil
	}
	c.sh.sess.Mint(l.node)
	return session.Scoped(v.snap, l.node), nil
}

func (c *call) cat() error {
	if len(c.args) == 0 {
		return fmt.Errorf("usage: %s", builtins["cat"].usage)
	}
	for i, a := range c.args {
		locs, err := c.locate(a.val)
		if err != nil {
			return err
		}
		for j, l := range locs {
			if i+j > 0 {
				c.println("")
			}
			c.println(c.properties(l)...)
		}
	}
	return nil
}

// properties are a node's every property, one per line, empty ones left
// out.
func (c *call) properties(l loc) []string {
	v := c.v
	out := []string{"path: " + v.pathOf(l)}
	add := func(k, val string) {
		if val != "" {
			// One line per property: a line break in a value is written \n.
			out = append(out, k+": "+strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r").Replace(val))
		}
	}
	switch l.at {
	case atTab:
		h := v.snap.Header
		if l.node.Page != nil {
			h = *l.node.Page
		}
		add("tab", strconv.Itoa(l.tab))
		add("title", h.Title)
		add("url", h.URL)
		return out
	case atNode:
	default:
		return out
	}
	n := l.node
	c.sh.sess.Mint(n)
	add("role", n.Role)
	add("name", n.Name)
	add("ref", n.Ref)
	add("description", n.Description)
	add("value", n.Value)
	add("states", n.States.String())
	if n.Level > 0 {
		add("level", strconv.Itoa(n.Level))
	}
	add("href", n.URL)
	add("id", n.ID)
	if b := n.Bounds; b != nil {
		add("box", fmt.Sprintf("%g,%g %gx%g", b.X, b.Y, b.W, b.H))
	}
	if k := len(tree.Listed(n)); k > 0 {
		add("children", strconv.Itoa(k))
	}
	return out
}

func (c *call) grep() error {
	fl, args, err := c.flags("-r", "-i", "-v", "-c", "-e=")
	if err != nil {
		return err
	}
	if e, ok := fl["-e"]; ok {
		args = append([]arg{{val: e, raw: e}}, args...)
	}
	if len(args) == 0 || len(args) > 2 {
		return fmt.Errorf("usage: %s", builtins["grep"].usage)
	}
	_, rec := fl["-r"]
	_, fold := fl["-i"]
	_, invert := fl["-v"]
	_, count := fl["-c"]
	re, err := pattern(args[0].val, fold)
	if err != nil {
		return err
	}
	keep := func(s string) bool { return re.MatchString(s) != invert }
	if c.in != nil && len(args) == 1 {
		lines, _ := c.input()
		n := 0
		for _, l := range lines {
			if keep(l) {
				n++
				if !count {
					c.println(l)
				}
			}
		}
		if count {
			c.println(strconv.Itoa(n))
		}
		return nil
	}
	p := "."
	if len(args) == 2 {
		p = args[1].val
	}
	locs, err := c.locate(p)
	if err != nil {
		return err
	}
	for _, l := range locs {
		root := l.node
		if l.at == atApps || (l.at == atRoot && c.v.desktop) {
			root = c.v.snap.Root
		}
		if root == nil {
			return fmt.Errorf("grep searches a page or a node's folder, not %s", c.v.pathOf(l))
		}
		var hits []*tree.Node
		var walk func(n *tree.Node)
		walk = func(n *tree.Node) {
			for _, k := range tree.Listed(n) {
				if keep(tree.Line(k)) {
					hits = append(hits, k)
				}
				if rec {
					walk(k)
				}
			}
		}
		walk(root)
		if count {
			c.println(strconv.Itoa(len(hits)))
			continue
		}
		c.sh.sess.Mint(hits...)
		for _, h := range hits {
			c.println(tree.Line(h))
		}
	}
	return nil
}

// pattern compiles a grep pattern: a regular expression, or the text
// itself when it is not one.
func pattern(p string, fold bool) (*regexp.Regexp, error) {
	prefix := ""
	if fold {
		prefix = "(?i)"
	}
	re, err := regexp.Compile(prefix + p)
	if err != nil {
		re, err = regexp.Compile(prefix + regexp.QuoteMeta(p))
	}
	return re, err
}

func (c *call) find() error {
	if len(c.args) == 0 {
		return fmt.Errorf("usage: %s", builtins["find"].usage)
	}
	if c.args[0].val == "at" && !c.args[0].data {
		// find at X,Y: the node at a point, as the find action answers.
		a, _ := action.Named("find")
		return c.act(a)
	}
	args := c.args
	l := loc{}
	scoped := false
	if len(args) > 1 {
		if got, err := c.locateOne(args[0].val); err == nil {
			l, args, scoped = got, args[1:], true
		}
	}
	if !scoped {
		here, err := c.locateOne(".")
		if err != nil {
			return err
		}
		l = here
	}
	raws := make([]string, len(args))
	for i, a := range args {
		raws[i] = a.raw
		if a.quoted && selectorLike(a.val) {
			raws[i] = a.val // a quoted selector: find 'role:form >> role:button'
		}
	}
	sel, err := selector.Parse(strings.Join(raws, " "))
	if err != nil {
		return err
	}
	snap, err := c.scope(l)
	if err != nil {
		return err
	}
	if snap == nil {
		return fmt.Errorf("find searches a page or a folder in one; cd into a tab first")
	}
	hits := selector.FindHits([]*tree.Snapshot{snap}, sel)
	if len(hits) == 0 {
		_, _, err := selector.Resolve([]*tree.Snapshot{snap}, sel)
		var none *selector.NoMatchError
		if errors.As(err, &none) {
			c.sh.sess.Mint(none.Nodes()...)
		}
		c.println(err.Error())
		return nil
	}
	for _, h := range hits {
		c.sh.sess.Mint(h.Node)
		line := tree.Line(h.Node)
		if h.Context != "" {
			line += " in " + h.Context
		}
		c.println(line)
	}
	return nil
}

func (c *call) text() error {
	if len(c.args) > 1 {
		return fmt.Errorf("usage: %s", builtins["text"].usage)
	}
	p := "."
	if len(c.args) == 1 {
		p = c.args[0].val
	}
	l, err := c.locateOne(p)
	if err != nil {
		return err
	}
	a := action.Action{Kind: action.Extract, Format: "markdown"}
	switch l.at {
	case atTab:
		if l.node != c.v.snap.Root {
			c.sh.sess.Mint(l.node)
			a.Target = l.node.Ref
		}
	case atNode:
		if c.sh.sess.Mint(l.node); l.node.Ref == "" {
			return fmt.Errorf("%s has no text of its own to extract; try its folder", c.v.pathOf(l))
		}
		a.Target = l.node.Ref
	default:
		return fmt.Errorf("text reads a page or a node, not %s", c.v.pathOf(l))
	}
	r, err := c.sh.sess.Run(c.ctx, a)
	if err != nil {
		return err
	}
	c.println(strings.TrimSuffix(r.Text, "\n"))
	return nil
}
