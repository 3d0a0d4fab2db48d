package policy

import (
	"fmt"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// The --domains rule as the gate applies it: the option, and the checks on
// the URLs an action loads and the documents it acts in. The list itself
// (patterns, matching) is domains.go.

// Domains sets where the browser may go (--domains): see DomainList for
// the patterns. A pattern that does not parse makes Open fail. Without
// patterns the option adds no rule.
func Domains(patterns ...string) Option {
	return func(p *Policy) {
		d, err := ParseDomains(patterns...)
		if err != nil {
			p.domainsErr = err
			return
		}
		if d == nil {
			return
		}
		if p.domains == nil {
			p.domains = d
			return
		}
		// A second Domains option adds its patterns to the first's.
		p.domains.allow = append(p.domains.allow, d.allow...)
		p.domains.deny = append(p.domains.deny, d.deny...)
		p.domains.schemes = p.domains.schemes || d.schemes
		for s, text := range d.allowApps {
			p.domains.addApp(s, text, false)
		}
		for s, text := range d.denyApps {
			p.domains.addApp(s, text, true)
		}
	}
}

// Domains is the session's --domains list, for the browser to enforce on
// every request it loads; nil when the session has none.
func (p *Policy) Domains() *DomainList { return p.domains }

// checkDomains refuses, at every tier, a navigation or new tab whose URL
// --domains refuses (before anything loads), and an action whose target
// lies in a frame (or page) whose document comes from a refused origin.
func (p *Policy) checkDomains(r Request) error {
	if p.domains == nil {
		return nil
	}
	if err := p.checkURLs(r.Action); err != nil {
		return err
	}
	if !r.Action.Acts() || r.Page == nil {
		return nil
	}
	// Judge where the input lands (effect.go): keys go to the focused
	// element, a scroll with no target to the page, a click to the node
	// under the pointer, a submit to the form's button.
	nodes := receivers(r)
	if r.Node == nil && (r.Action.Kind == action.Press || r.Action.Kind == action.Scroll) {
		nodes = append(nodes, focused(r.Page)) // the page itself when nothing has the focus
	}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		if doc, frame, err := p.refusedDocument(r.Page, n); err != nil {
			what := string(r.Action.Kind)
			if r.Target != "" && n == r.Node {
				what += " " + r.Target
			} else if n == r.To {
				what += " to " + tree.Line(n)
			}
			where := "page"
			if frame {
				where = "frame"
			}
			return fmt.Errorf("%s: the target is inside a %s from %s: %w", what, where, trimScheme(cut(doc)), err)
		}
	}
	return nil
}

// checkURLs judges the URL a navigate or tabs new loads; a batch's steps
// each.
func (p *Policy) checkURLs(a action.Action) error {
	switch {
	case a.Kind == action.Navigate && a.URL != "", a.Kind == action.Tabs && a.Nav == "new" && a.URL != "":
		if err := p.domains.Allows(action.NormalizeURL(a.URL)); err != nil {
			return fmt.Errorf("%s %s: %w", a.Kind, a.URL, err)
		}
	case a.Kind == action.OpenApp:
		// A URL handed to an application is loaded by it: the same
		// hosts are refused as for the browser.
		for _, arg := range a.Args {
			if u, ok := urlArg(arg); ok && (u.Scheme == "http" || u.Scheme == "https") {
				if err := p.domains.Allows(action.NormalizeURL(arg)); err != nil {
					return fmt.Errorf("%s %s %s: %w", a.Kind, a.Command, arg, err)
				}
			}
		}
	case a.Kind == action.Permissions && a.Origin != "" && len(a.Grant) > 0:
		// A grant reaches the origin it names, loaded or not: one that
		// --domains refuses would hold it for a page the browser may
		// never show, but a popup or frame of that origin might.
		origin := a.Origin
		if !strings.Contains(origin, "://") {
			origin = "http://" + origin
		}
		if err := p.domains.Allows(strings.TrimSuffix(origin, "/") + "/"); err != nil {
			return fmt.Errorf("%s granted to %s: %w", a.Kind, a.Origin, err)
		}
	case a.Kind == action.Batch:
		for i, s := range a.Steps {
			if err := p.checkURLs(s); err != nil {
				return fmt.Errorf("step %d: %w", i+1, err)
			}
		}
	}
	return nil
}

// refusedDocument finds target in page and judges the URL of every
// document on the way to it: the tab's page, each frame it is inside (a
// tree.Node's Frame), a browser page grafted into a desktop tree (its
// Page header). It returns the first refused document's URL, whether it
// is a frame's (not a page's), and why it is refused.
func (p *Policy) refusedDocument(page *tree.Snapshot, target *tree.Node) (string, bool, error) {
	type doc struct {
		url   string
		frame bool
	}
	var docs []doc
	var find func(n *tree.Node) bool
	find = func(n *tree.Node) bool {
		pushed := 0
		if n.Page != nil && n.Page.URL != "" {
			docs, pushed = append(docs, doc{n.Page.URL, false}), pushed+1
		}
		if n.Frame != "" {
			// The root's Frame is its page's own document.
			docs, pushed = append(docs, doc{n.Frame, n != page.Root}), pushed+1
		}
		if n == target {
			return true
		}
		for _, c := range n.Children {
			if find(c) {
				return true
			}
		}
		docs = docs[:len(docs)-pushed]
		return false
	}
	if page.Root == nil {
		return "", false, nil
	}
	if page.Header.Kind == "tab" && page.Header.URL != "" && page.Root.Frame == "" {
		// A source that does not say which document its root shows.
		docs = append(docs, doc{page.Header.URL, false})
	}
	if !find(page.Root) {
		return "", false, nil
	}
	for _, d := range docs {
		if err := p.domains.Allows(d.url); err != nil {
			return d.url, d.frame, err
		}
	}
	return "", false, nil
}

// focused is the snapshot's focused node, or its root.
func focused(page *tree.Snapshot) *tree.Node {
	n := page.Root
	tree.Walk(page.Root, func(x *tree.Node) bool {
		if x.States.Has(tree.Focused) {
			n = x
		}
		return true
	})
	return n
}

// trimScheme drops http:// and https:// from a URL for a message.
func trimScheme(u string) string {
	for _, s := range []string{"http://", "https://"} {
		if strings.HasPrefix(u, s) {
			return u[len(s):]
		}
	}
	return u
}
