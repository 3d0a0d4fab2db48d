package policy

import (
	"fmt"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/keys"
	"github.com/canopy-dev/canopy/tree"
)

// The browser's own UI on the desktop. A browser window's address bar
// loads whatever is typed into it: javascript: (run in the page), file:,
// chrome:, data:, any host. canopy judges the URLs of navigate by the tier
// and --domains, and the requests of every page by the request
// interception, but text typed into the browser's own fields reaches the
// browser as keys: nothing in it is a URL canopy could judge before the
// browser acts on it. So putting text or keys into a text field of the
// browser's own UI (the address bar, the find bar, a bookmark's editor:
// a text field of a browser application outside the web document) needs
// the sensitive tier; navigate does what typing a URL there would do, with
// the URL judged. What the action reaches is judged (effect.go): the field
// it names, the focused one for keys with no target, a drag's drop target.

// checkBrowserUI refuses, below the sensitive tier, an action that puts
// text or keys into a text field of a browser's own UI.
func (p *Policy) checkBrowserUI(r Request) error {
	if p.tier >= action.Sensitive || r.Page == nil || r.Page.Root == nil {
		return nil
	}
	a := r.Action
	var nodes []*tree.Node
	switch a.Kind {
	case action.Type, action.SetValue, action.Press:
		if r.Node == nil && a.Kind != action.SetValue {
			// Keys go where the focus is. A page keeps its own focused
			// element marked while the browser's UI has the focus, so
			// every focused node counts, not only the last one.
			nodes = focusedNodes(r.Page.Root)
		} else {
			nodes = []*tree.Node{r.Node}
		}
		if a.Kind == action.Press && leavesField(a.Keys) {
			return nil // keys that only move the focus out
		}
	case action.Drag:
		nodes = []*tree.Node{r.To} // a drop onto the address bar loads it
	default:
		return nil
	}
	for _, n := range nodes {
		if n == nil || !browserField(r.Page.Root, n) {
			continue
		}
		what := map[action.Kind]string{
			action.Type: "typing into", action.SetValue: "setting the value of",
			action.Press: "pressing keys in", action.Drag: "dropping onto",
		}[a.Kind]
		field := "the browser's own text field"
		if address(r.Page.Root, n) {
			field = "the browser's address bar"
		}
		return fmt.Errorf("%s %s (%s) needs the sensitive tier; use navigate (this session allows %s) (--allow sensitive): %w",
			what, field, cite(n), p.tier, ErrDenied)
	}
	return nil
}

// cite names a node by its role, name and ref (not its value).
func cite(n *tree.Node) string {
	parts := []string{n.Role}
	if n.Name != "" {
		parts = append(parts, fmt.Sprintf("%q", n.Name))
	}
	if n.Ref != "" {
		parts = append(parts, n.Ref)
	}
	return strings.Join(parts, " ")
}

// focusedNodes lists every node of root marked focused.
func focusedNodes(root *tree.Node) []*tree.Node {
	var out []*tree.Node
	tree.Walk(root, func(x *tree.Node) bool {
		if x.States.Has(tree.Focused) {
			out = append(out, x)
		}
		return true
	})
	return out
}

// leavesField says whether every chord of spec only moves the focus
// (Tab, F6) or dismisses (Escape): keys that leave a field as it was.
func leavesField(spec string) bool {
	chords, err := keys.Parse(spec)
	if err != nil || len(chords) == 0 {
		return false
	}
	for _, c := range chords {
		switch c.Key {
		case "Tab", "F6", "Escape":
		default:
			return false
		}
	}
	return true
}

// browserField says whether n is a text field of a browser's own UI: a
// text field (textbox, searchbox, combobox) in a browser application (see
// isBrowserApp), outside every web document in it and every dialog (the
// Save dialog's file name is no URL).
func browserField(root, n *tree.Node) bool {
	switch n.Role {
	case "textbox", "searchbox", "combobox":
	default:
		return false
	}
	path := pathTo(root, n)
	if path == nil {
		return false
	}
	var app *tree.Node
	for _, x := range path {
		if x.Page != nil || x.Role == tree.RoleDocument || x.Frame != "" {
			return false // web content, the page's or one the desktop read
		}
		if x.Role == "dialog" || x.Role == "alertdialog" || x.Role == "alert" {
			// A dialog the browser opens (the Save dialog's file name):
			// no URL is typed there.
			return false
		}
		if x.Role == "application" {
			app = x
		}
	}
	return app != nil && isBrowserApp(app)
}

// address says whether a browser field n is its window's address bar: the
// text field in the toolbar (the one of the window's top bar, whatever
// the browser's language names it).
func address(root, n *tree.Node) bool {
	for _, x := range pathTo(root, n) {
		if x.Role == "toolbar" {
			return true
		}
	}
	return false
}

// isBrowserApp says whether an application node is a web browser: it
// holds the page of canopy's own browser (a node with a Page header: the
// desktop's Chromium, whatever its name), or it has the name of a
// Chromium-based browser or of Firefox.
func isBrowserApp(app *tree.Node) bool {
	holds := false
	tree.Walk(app, func(x *tree.Node) bool {
		holds = holds || x.Page != nil
		return !holds
	})
	if holds {
		return true
	}
	name := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(app.Name)), " browser")
	switch name {
	case "chromium", "chromium-browser", "chrome", "google chrome", "google-chrome", "brave",
		"microsoft edge", "vivaldi", "opera", "firefox", "mozilla firefox":
		return true
	}
	return false
}

// pathTo is the nodes from root down to n, both included, or nil when n
// is not under root.
func pathTo(root, n *tree.Node) []*tree.Node {
	var stack []*tree.Node
	var walk func(c *tree.Node) bool
	walk = func(c *tree.Node) bool {
		stack = append(stack, c)
		if c == n {
			return true
		}
		for _, k := range c.Children {
			if walk(k) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		return false
	}
	if root == nil || n == nil || !walk(root) {
		return nil
	}
	return stack
}
