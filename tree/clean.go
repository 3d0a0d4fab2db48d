package tree

import (
	"slices"
	"strings"
	"unicode"
)

// Clean removes noise from a raw tree in place and returns it (docs/tree.md):
//
//   - unnamed generic wrappers are flattened, their children move up;
//   - adjacent runs of text merge into one text node, and a paragraph that
//     holds only text takes that text as its name and is printed bare;
//   - text that only repeats its parent's name, or the name of a labelled
//     control beside it, is dropped;
//   - an unnamed clickable node is named by its own text, or by its Hint.
//
// Hidden content is the source's job: it never puts it in the raw tree.
// Clean is idempotent, so it is safe on a tree that was already cleaned.
func Clean(root *Node) *Node {
	if root == nil {
		return nil
	}
	root.Name = CollapseSpace(root.Name)
	root.Children = cleanChildren(root, root.Children, nil)
	return root
}

// cleanChildren cleans kids, the children of parent; names holds the
// normalised names of parent's named ancestors (parent excluded), which text
// and headings below must not merely repeat.
func cleanChildren(parent *Node, kids []*Node, names []string) []*Node {
	if pn := ancestorName(parent); pn != "" {
		names = append(names[:len(names):len(names)], pn)
	}
	out := make([]*Node, 0, len(kids))
	for _, c := range kids {
		if c.Role != RoleText {
			// Text keeps its own spaces until runs of it are merged.
			c.Name = CollapseSpace(c.Name)
		}
		noteRow(c) // pagemap.go
		nameRow(c)
		c.Children = cleanChildren(c, c.Children, names)
		nameClickable(c)
		if inlineText(c) {
			// Inline markup in running text (code, emphasis…) reads as
			// the text it holds; it merges with its neighbours below.
			// The neighbouring text carries the spaces around it.
			c = &Node{Role: RoleText, Name: textOf(c), Key: c.Key, Block: c.Block}
		}
		if flattenable(c) || passThrough(c) || namedWrapper(c) {
			if c.Block {
				// The block's text keeps its boundary with what is
				// around it once it moves up.
				for _, k := range c.Children {
					if k.Role == RoleText {
						k.Block = true
					}
				}
			}
			out = append(out, c.Children...)
			continue
		}
		if empty(c) {
			continue
		}
		if onlyTextChild(c) && (c.Role == "paragraph" || c.Role == "listitem") {
			// The paragraph or list item keeps its role (so runs of them
			// stay apart and elision counts them) and takes its text as
			// its name; Format prints a paragraph bare.
			c.Name = c.Children[0].Name
			c.Children = nil
		}
		out = append(out, c)
	}
	out = mergeText(out)
	kept := out[:0]
	for _, c := range out {
		if c.Role == RoleText {
			c.Name = CollapseSpace(c.Name)
			if c.Name == "" || separator(c.Name) {
				continue
			}
		}
		kept = append(kept, c)
	}
	nameToggles(parent, kept)
	return dropRepeatedText(parent, kept, names)
}

// nameToggles names an unnamed checkbox, radio button or switch among kids,
// the cleaned children of parent, by the text right beside it (after it,
// else before it) when parent is an item or a label-like box: the words a
// label the page forgot to tie to the control shows, so the control reads
// and is targeted as the user sees it (`check role:checkbox name:"Buy
// milk"`). The name is [Node.Borrowed]: the text stays, so the container
// keeps its line and its other children (passThrough does not fold a list
// item into its checkbox).
func nameToggles(parent *Node, kids []*Node) {
	if !toggleHolders[parent.Role] {
		return
	}
	for i, c := range kids {
		if c.Name != "" || !toggleRoles[c.Role] {
			continue
		}
		switch {
		case i+1 < len(kids) && kids[i+1].Role == RoleText:
			c.Name, c.Borrowed = kids[i+1].Name, true
		case i > 0 && kids[i-1].Role == RoleText:
			c.Name, c.Borrowed = kids[i-1].Name, true
		}
	}
}

var (
	toggleRoles = set("checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio")
	// toggleHolders are the containers in which the text beside a toggle
	// is its label: an item, a row or cell, or a small box of its own (a
	// wrapper's children are cleaned before it is flattened). A form or a
	// page is not: the text after a checkbox there may be anything.
	toggleHolders = set("listitem", "treeitem", "option", "menuitem", "row", "cell", "gridcell",
		"label", "paragraph", RoleGeneric)
)

// onlyTextChild reports whether n is unnamed, without ref, state or value,
// and holds one text node and nothing else.
func onlyTextChild(n *Node) bool {
	return n.Name == "" && n.Ref == "" && n.States == 0 && n.Value == "" && len(n.Children) == 1 &&
		n.Children[0].Role == RoleText && len(n.Children[0].Children) == 0
}

// ancestorName is n's name in the form its descendants are compared with for
// repetition, or "" when they need not avoid it: a document's or frame's
// title is not its text.
func ancestorName(n *Node) string {
	if n.Role == RoleDocument || n.Role == RoleFrame {
		return ""
	}
	return normText(n.Name)
}

// flattenable reports whether n is a wrapper that adds nothing: no name, no
// value, no state an agent could use, and a role that means nothing.
func flattenable(n *Node) bool {
	if n.Name != "" || n.Value != "" || n.States.Has(Clickable) || n.States.Has(Focused) {
		return false
	}
	switch n.Role {
	case RoleGeneric, "none", "presentation", "group", "section", "listitem", "cell", "rowgroup",
		"emphasis", "strong", "mark", "time", "abbr", "span", "label":
		// An unnamed group, section, or cell holds nothing worth a line of
		// its own; its children say it all. Lists keep their items because
		// elision counts them ("… 40 more list items").
		if n.Role == "listitem" {
			return len(n.Children) == 0
		}
		if n.Role == "cell" {
			return len(n.Children) == 0
		}
		return true
	}
	return false
}

// inlineText reports whether n is inline markup around plain text only.
//
// A node whose cleaned children are several texts is not: they stayed apart
// because a block boundary lies between them.
func inlineText(n *Node) bool {
	if n.Ref != "" || n.States != 0 || n.Name != "" && n.Role != "code" || len(n.Children) == 0 {
		return false
	}
	if len(n.Children) > 1 && n.Children[0].Role == RoleText && n.Children[1].Role == RoleText {
		return false
	}
	switch n.Role {
	case "code", "emphasis", "strong", "mark", "time", "abbr", "subscript", "superscript",
		"deletion", "insertion", RoleGeneric:
		return onlyText(n)
	}
	return false
}

// passThrough reports whether n is an unnamed paragraph, list item or cell
// around a single control: the control says it all ("paragraph" over
// "link …" is a wasted line).
func passThrough(n *Node) bool {
	if n.Value != "" || n.States != 0 || len(n.Children) != 1 || n.Children[0].Role == RoleText {
		return false
	}
	if n.Name != "" && !sameText(n.Name, n.Children[0].Name) {
		return false
	}
	switch n.Role {
	case "paragraph", "listitem", "cell", "gridcell", "label":
		return true
	}
	return false
}

// namedWrapper reports whether n is a generic wrapper named like the one
// control inside it (`<div aria-label="Copy"><button aria-label="Copy">`):
// its line would only say the control's name again, so the control moves up
// in its place. A wrapper with a value or a state besides clickable keeps
// its line; the control inside takes the click.
func namedWrapper(n *Node) bool {
	if n.Role != RoleGeneric || n.Name == "" || n.Value != "" || n.States&^Clickable != 0 {
		return false
	}
	var only *Node
	count := 0
	for _, c := range n.Children {
		Walk(c, func(x *Node) bool {
			if IsActionRole(x.Role) || x.States.Has(Clickable) {
				only = x
				count++
			}
			return count < 2
		})
	}
	return count == 1 && sameText(only.Name, n.Name)
}

// empty reports whether n says nothing at all: no name, value, state or
// children, and not a control (an empty textbox still matters).
func empty(n *Node) bool {
	return n.Unread == 0 && n.Name == "" && n.Value == "" && n.States == 0 && len(n.Children) == 0 &&
		!IsActionRole(n.Role) && n.Role != RoleFrame
}

// nameClickable gives an unnamed clickable node a name from its own text (and
// drops that text), or from its hint, so that an agent can target it.
func nameClickable(n *Node) {
	if !n.States.Has(Clickable) || n.Name != "" {
		return
	}
	if t := textOf(n); t != "" && onlyText(n) {
		n.Name = t
		n.Children = nil
		return
	}
	n.Name = CollapseSpace(n.Hint)
}

// onlyText reports whether every descendant of n is text or a wrapper of text.
func onlyText(n *Node) bool {
	ok := true
	for _, c := range n.Children {
		Walk(c, func(x *Node) bool {
			if x.Role != RoleText && (x.Role != RoleGeneric || x.Ref != "" || x.States != 0) {
				ok = false
			}
			return ok
		})
	}
	return ok
}

// textOf returns the collapsed text of n's descendants: their text, and the
// names of named leaves (a link inside a sentence reads as its name).
func textOf(n *Node) string {
	var b strings.Builder
	for _, c := range n.Children {
		Walk(c, func(x *Node) bool {
			if x.Role == RoleText || x.Name != "" && len(x.Children) == 0 && !x.Borrowed {
				b.WriteString(x.Name)
				b.WriteByte(' ')
			}
			return true
		})
	}
	return CollapseSpace(b.String())
}

// mergeText joins adjacent text nodes into one, unless a block boundary lies
// between them (either came out of a block element, [Node.Block]). The
// merged node keeps the first node's key, so its identity stays stable
// across snapshots.
func mergeText(kids []*Node) []*Node {
	out := kids[:0]
	for _, c := range kids {
		if c.Role == RoleText && len(out) > 0 {
			prev := out[len(out)-1]
			if prev.Role == RoleText && prev.States == 0 && c.States == 0 && !prev.Block && !c.Block {
				prev.Name += c.Name
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// dropRepeatedText removes text children that only repeat the parent's name,
// an ancestor's name (names, normalised), or the name of a control among the
// siblings (a <label> beside its input); headings that repeat the parent's
// or an ancestor's name (a dialog's title); and, in a named row, the
// plain-text cells that its name already holds.
func dropRepeatedText(parent *Node, kids []*Node, names []string) []*Node {
	ancestor := func(t string) bool {
		t = normText(t)
		return t != "" && (slices.Contains(names, t) || t == ancestorName(parent))
	}
	siblings := map[string]bool{}
	for _, c := range kids {
		if c.Role != RoleText && c.Name != "" && !c.Borrowed {
			siblings[normText(c.Name)] = true
		}
	}
	pname := normText(parent.Name)
	if parent.Role == RoleDocument || parent.Role == RoleFrame {
		pname = "" // a page's title is not its text
	}
	repeats := func(t string) bool {
		t = normText(t)
		return t != "" && (siblings[t] || pname != "" && strings.Contains(pname, t))
	}
	pvalue := normText(parent.Value)
	out := kids[:0]
	for _, c := range kids {
		switch {
		case c.Role == RoleText && (repeats(c.Name) || ancestor(c.Name)):
			continue
		case c.Role == "heading" && c.Ref == "" && c.States == 0 && (len(c.Children) == 0 || onlyText(c)) &&
			(ancestor(c.Name) || c.Name == "" && ancestor(textOf(c))):
			continue // a dialog's or region's title, said on its own line
		case c.Role == RoleText && (parent.States.Has(Protected) || pvalue != "" && normText(c.Name) == pvalue):
			continue // a field's own rendering of its value (or of a password's bullets)
		case (c.Role == "caption" || c.Role == "figcaption" || proseRoles[c.Role]) && c.Ref == "" &&
			c.States == 0 && c.Value == "" && (len(c.Children) == 0 || onlyText(c)) && pname != "" &&
			(normText(c.Name) == pname || normText(textOf(c)) == pname):
			// A caption or code span that repeats its table's or link's name.
			continue
		case parent.Role == "row" && isCell(c) && (len(c.Children) == 0 || onlyText(c)) && c.States == 0:
			continue // its text is in the row's name
		}
		out = append(out, c)
	}
	return out
}

func isCell(n *Node) bool {
	switch n.Role {
	case "cell", "gridcell", "columnheader", "rowheader":
		return true
	}
	return false
}

// nameRow names an unnamed table row after its cells, "1 | Ada | Admin", the
// way an agent reads a row and a `name~:` selector finds it.
func nameRow(n *Node) {
	if n.Role != "row" || n.Name != "" {
		return
	}
	var parts []string
	for _, c := range n.Children {
		if !isCell(c) {
			continue
		}
		t := CollapseSpace(c.Name)
		if t == "" {
			t = textOf(c)
		}
		parts = append(parts, t)
	}
	n.Name = strings.Join(parts, " | ")
}

// separator reports whether t is a visual separator ("|", "»", "·"): a
// rune or two with no letter or digit.
func separator(t string) bool {
	return normText(t) == "" && len([]rune(t)) <= 2
}

// normText is the form in which two texts are compared for repetition:
// letters and digits only, lowercased, so spacing and punctuation that CSS
// or markup add do not hide a repeat.
func normText(s string) string {
	if ascii(s) {
		buf := make([]byte, 0, len(s))
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				buf = append(buf, c)
			case 'A' <= c && c <= 'Z':
				buf = append(buf, c+'a'-'A')
			}
		}
		return string(buf)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// ascii reports whether s has no byte outside ASCII: normText's fast path.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func sameText(a, b string) bool { return normText(a) == normText(b) }

// CollapseSpace trims s, collapses every run of white space to one space and
// drops the invisible characters pages put in text only to steer line breaks
// (see [invisible]). It is the one normalisation of names: Clean applies it
// to every name and text, and selectors to what they are asked to match.
func CollapseSpace(s string) string {
	if s == "" {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if invisible(r) {
			continue
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// invisible reports whether r is a character that shows nothing and means
// nothing to a reader: a zero-width space or word joiner (a line-break
// hint: Swagger UI writes "/pets\u200b/{id}"), a zero-width no-break space
// (a stray byte-order mark) or a soft hyphen. Joiners that shape emoji and
// scripts (U+200C, U+200D) and direction marks stay.
func invisible(r rune) bool {
	switch r {
	case '\u200b', '\u2060', '\ufeff', '\u00ad':
		return true
	}
	return false
}
