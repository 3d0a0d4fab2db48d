package shell

import (
	"fmt"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/save"
	"github.com/canopy-dev/canopy/selector"
)

// valueTarget stands in the step's text for a target given as a value
// (`click $sel`): the step parser reads the words around it, and the
// value is set as the target after, so it is never read as step syntax.
const valueTarget = "TARGET"

// act runs an action of the action table, named as its step: the words
// after the name are the step's, except that a path may stand where the
// step takes a target. The action goes through the executor like every
// other: resolved strictly, checked against the tier and the allowlists,
// settled, and answered with what changed.
//
// A value ($x, "$x", a line of $(…)) is data, never the step's syntax:
// where the step takes a target it is a path, a ref, a line canopy
// printed or a selector naming it; anywhere else it is one quoted
// argument (the text to type, the URL), so page text such as `"cats"
// submit` or `credential:github` is typed as it is.
func (c *call) act(preset action.Action) error {
	spec, _ := action.SpecOf(preset.Kind)
	words := make([]string, 0, len(c.args)+1)
	words = append(words, c.name)
	rest := c.args
	viaPath := false
	valueSel := "" // a selector given as a value, set once the step is read
	switch first := arg0(rest); {
	case spec.Target == action.NoTarget || len(rest) == 0:
	case first.data && first.quoted:
		if !pathLike(first.val) && spec.Target != action.NeedsTarget {
			break // press $keys: the step's argument
		}
		ref, err := c.refOf(first.val)
		switch {
		case err == nil:
			words, rest, viaPath = append(words, ref), rest[1:], true
		case lineShaped(first.val):
			return err // a line that names nothing is no argument either
		case spec.Target == action.NeedsTarget && selectorLike(first.val):
			words, rest, valueSel = append(words, valueTarget), rest[1:], first.val
		case spec.Target == action.NeedsTarget:
			return err
		}
	case pathLike(first.val):
		// A path with spaces comes quoted; a quoted word that names no
		// node is the step's argument after all.
		ref, err := c.refOf(first.val)
		switch {
		case err == nil:
			words, rest, viaPath = append(words, ref), rest[1:], true
		case first.quoted && selectorLike(first.val) && !lineShaped(first.val):
			// A quoted selector, as an MCP target would be written.
			words, rest = append(words, first.val), rest[1:]
		case first.quoted && spec.Target == action.OptionalTarget && !lineShaped(first.val): // screenshot "a/b.png"
		case first.quoted || strings.Contains(first.val, "/") || !selectorLike(first.val):
			return err
		}
	}
	if preset.Kind == action.Drag && viaPath && len(rest) > 0 && pathLike(rest[0].val) {
		// drag PATH PATH: the drop target, as the step's quoted argument.
		ref, err := c.refOf(rest[0].val)
		switch {
		case err == nil:
			words, rest = append(words, requote(ref)), rest[1:]
		case !rest[0].quoted || lineShaped(rest[0].val):
			return err
		}
	}
	if preset.Kind == action.Navigate && preset.Nav == "" && len(rest) == 1 && !rest[0].quoted &&
		!contains([]string{"back", "forward", "reload"}, strings.ToLower(rest[0].val)) {
		rest = []arg{{val: rest[0].val, raw: requote(rest[0].val), quoted: true}} // open URL
	}
	for _, a := range rest {
		words = append(words, a.raw)
	}
	steps, err := action.ParseSteps(strings.Join(words, " "))
	if err != nil {
		return err
	}
	a := steps[0]
	if valueSel != "" {
		if a.Target != valueTarget {
			return fmt.Errorf("unexpected %q after the target (usage: %s)", strings.TrimPrefix(a.Target, valueTarget+" "), spec.Syntax)
		}
		a.Target = valueSel
	}
	if !viaPath {
		if a.Target, err = c.scoped(a.Target); err != nil {
			return err
		}
	}
	if a.Kind == action.Screenshot && a.Path == "" {
		// The shell shows no images: the PNG is a file in the downloads
		// folder, which the executor saves and names in the reply.
		a.Path = save.ScreenshotName
	}
	r, err := c.sh.sess.Run(c.ctx, a)
	c.v = nil // the page may have changed
	if r.Text != "" {
		c.println(strings.TrimSuffix(r.Text, "\n"))
	}
	if r.Replaced || a.Kind == action.Tabs && a.Nav != "" && a.Nav != "list" {
		// A new document, or another tab: the working folder is the
		// tab's root again.
		c.sh.cwd, c.sh.cwdRef = "", ""
	}
	return err
}

// pathLike reports whether a word may be a path rather than a selector or
// a step's keyword: it has a '/', an '@', a role:name segment's ':', is a
// ref or . or .., or is written as a line canopy printed.
func pathLike(s string) bool {
	switch {
	case s == "." || s == "..", selector.IsRef(s), strings.ContainsAny(s, "/@:"):
		return true
	}
	return lineShaped(strings.TrimSpace(s))
}

// arg0 is the first of args, or a zero arg.
func arg0(args []arg) arg {
	if len(args) == 0 {
		return arg{}
	}
	return args[0]
}

// selectorLike reports whether a word reads as the start of a selector
// (role:…, name:…), which a path that named nothing may still be.
func selectorLike(s string) bool {
	key, _, ok := strings.Cut(strings.TrimLeft(s, "!("), ":")
	if !ok {
		return false
	}
	key = strings.TrimSuffix(key, "~")
	return contains([]string{"role", "name", "text", "value", "id", "state", "window", "app", "tab", "url", "nth"}, strings.ToLower(key))
}

// refOf resolves a path to one node and returns its ref, minting one.
func (c *call) refOf(p string) (string, error) {
	l, err := c.locateOne(p)
	if err != nil {
		return "", err
	}
	n := l.node
	if l.at != atNode && l.at != atTab || n == nil {
		return "", fmt.Errorf("%s is a folder of the workspace, not a node to act on", c.v.pathOf(l))
	}
	if c.sh.sess.Mint(n); n.Ref == "" {
		return "", fmt.Errorf("%s has no identity of its own to act on (merged text): act on its folder", c.v.pathOf(l))
	}
	return n.Ref, nil
}

// scoped narrows a selector to the working folder: after `cd
// main/form:Login`, `click role:button` means the form's button. Refs,
// and selectors that name their own scope (window:, app:, tab:, url:),
// are left as they are.
func (c *call) scoped(target string) (string, error) {
	if target == "" || selector.IsRef(target) {
		return target, nil
	}
	for _, k := range []string{"window:", "app:", "tab:", "url:"} {
		if strings.Contains(target, k) {
			return target, nil
		}
	}
	here, err := c.locateOne(".")
	if err != nil || here.at != atNode {
		return target, err
	}
	if c.sh.sess.Mint(here.node); here.node.Ref == "" {
		return target, nil
	}
	return here.node.Ref + " >> (" + target + ")", nil
}
