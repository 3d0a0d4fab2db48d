// Package tree is canopy's one node model: the accessibility tree of a page or
// a desktop reduced to what an agent needs, and everything done to it that does
// not depend on where it came from — cleaning, refs, the compact text, the
// token budget.
//
// Sources (the browser over CDP, later the desktop over AT-SPI) build a raw
// tree of [Node] values with canonical roles and a source [Node.Key]; then
// [Clean] removes noise, [Refs.Assign] gives stable refs, and [Format] prints
// the compact text of docs/tree.md within a token budget.
package tree

import (
	"strings"
)

// Node is one accessible object: a control, a container, or a run of text.
//
// Role is canonical and lowercase (see roles.go). Static text has role
// [RoleText] and carries its text in Name. Children are in reading order.
type Node struct {
	Role     string  `json:"role"`
	Name     string  `json:"name,omitempty"`
	Value    string  `json:"value,omitempty"`
	Ref      string  `json:"ref,omitempty"`
	States   State   `json:"states,omitempty"`
	Level    int     `json:"level,omitempty"`
	Bounds   *Rect   `json:"bounds,omitempty"`
	Children []*Node `json:"children,omitempty"`
	// Description is the accessible description (aria-describedby, a
	// title beside a name, AT-SPI's Description): shown by the shell's
	// cat, matched by no selector key, not printed in the tree text.
	Description string `json:"description,omitempty"`
	// URL is a link's target, absolute. Not printed in the tree text.
	URL string `json:"url,omitempty"`
	// Unread counts children the source did not read (a page read on
	// demand); only on a RoleUnread placeholder, whose Name is their role
	// when they share one ("row"), for the elision to say what they are.
	Unread int `json:"unread,omitempty"`
	// UnreadKeys, on a RoleUnread placeholder, are the keys of the children
	// it stands for, where the source knows them: a node that comes into a
	// later read, or leaves it, is then not taken for added or removed.
	UnreadKeys []string `json:"-"`

	// Key names the underlying object for the whole session (a DOM node in a
	// given target, an AT-SPI object path). Refs are keyed by it. Empty for
	// nodes that have no identity of their own (merged text).
	Key string `json:"-"`
	// ID is the DOM id attribute or AT-SPI accessible id, matched by the
	// selector key id:. Not printed.
	ID string `json:"id,omitempty"`
	// Block says the source lays the node out as a block (a <div>, a <p>, a
	// flex item): its text never runs together with its neighbours' when
	// Clean flattens it and merges text. Inline markup (<b>, <span>) is not
	// a block and merges. Not printed.
	Block bool `json:"-"`
	// Borrowed says Name is not the node's own but the text printed right
	// beside it, which Clean lends to an unlabelled checkbox, radio button
	// or switch (`<li><input type=checkbox><label>Buy milk</label>`). That
	// text keeps its own line (it is an element of its own: TodoMVC edits
	// an item when its text is double-clicked), and text: finds the text,
	// not the control. Not printed.
	Borrowed bool `json:"-"`
	// Hint is a name of last resort for an unnamed clickable node (a title,
	// an image's alt, a class word), used only when Name stays empty.
	Hint string `json:"-"`
	// Page, on the node that holds a browser tab's page inside a larger
	// tree (the desktop's web document), is that tab's header: tab: and
	// url: then match inside it as they do in the tab's own snapshot.
	Page *Header `json:"-"`
	// Frame, on a node that shows a document (an iframe, the root of a
	// tab's page), is that document's URL — for an error page, the URL
	// that failed to load. The policy refuses acting inside a document
	// from an origin --domains refuses. Not printed.
	Frame string `json:"-"`
	// Secret, on a field a canopy session typed a credential into, is that
	// credential: Value shows «credential NAME», and the value is kept
	// here only so that every copy the page made of it can be redacted
	// too. It is never printed or serialized.
	Secret *Secret `json:"-"`
	// Chooser marks a file chooser (a dialog, or the widget in one): the
	// file chosen in it is what the application writes or reads, so the
	// policy judges what is typed and clicked inside it. Not printed.
	Chooser bool `json:"-"`

	// cells and headRow, on a table row, are how many cells it had before
	// cleaning and whether all were column headers (pagemap.go).
	cells   int
	headRow bool
}

// Secret is a credential a field holds: its name and value.
type Secret struct{ Name, Value string }

// Rect is a box in page CSS pixels (or screen pixels on the desktop).
type Rect struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Header describes a snapshot's scope, printed as its first line, e.g.
// `tab 1 "Acme login" 127.0.0.1:8080/login`.
type Header struct {
	Kind  string   `json:"kind"` // "tab", "window", "desktop"
	Index int      `json:"index,omitempty"`
	Title string   `json:"title"`
	URL   string   `json:"url,omitempty"`
	Notes []string `json:"notes,omitempty"` // e.g. "still loading after 10s"
	// Page is what the page's metadata says it is (schema.org, OpenGraph);
	// Format prints it below the header. Nil when it says nothing.
	Page *PageMeta `json:"page,omitempty"`
}

// Line renders the header as text. The URL is shown without its scheme to
// save tokens; notes follow in parentheses.
func (h Header) Line() string {
	var b strings.Builder
	b.WriteString(h.Kind)
	if h.Index > 0 {
		b.WriteByte(' ')
		b.WriteString(itoa(h.Index))
	}
	b.WriteByte(' ')
	b.WriteString(quote(h.Title, 0))
	if h.URL != "" {
		b.WriteByte(' ')
		b.WriteString(trimScheme(h.URL))
	}
	for _, n := range h.Notes {
		b.WriteString(" (")
		b.WriteString(n)
		b.WriteByte(')')
	}
	return b.String()
}

// Snapshot is one observation: a header and the tree under it. Root is the
// document (or window) node; its own line is the header, so Format prints
// only its children.
type Snapshot struct {
	Header Header `json:"header"`
	Root   *Node  `json:"root"`
}

// Walk calls fn for n and every descendant in document order. When fn returns
// false the node's children are skipped.
func Walk(n *Node, fn func(*Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	for _, c := range n.Children {
		Walk(c, fn)
	}
}

// Count returns the number of nodes in the tree under n, n included.
func Count(n *Node) int {
	c := 0
	Walk(n, func(*Node) bool { c++; return true })
	return c
}

// Find returns the first node under n, n included, in document order for
// which match is true, or nil.
func Find(n *Node, match func(*Node) bool) *Node {
	var found *Node
	Walk(n, func(x *Node) bool {
		if found == nil && match(x) {
			found = x
		}
		return found == nil
	})
	return found
}

// FindRef returns the node under n whose ref is ref, or nil.
func FindRef(n *Node, ref string) *Node {
	return Find(n, func(x *Node) bool { return x.Ref == ref })
}

func trimScheme(u string) string {
	for _, p := range []string{"http://", "https://"} {
		if strings.HasPrefix(u, p) {
			return strings.TrimSuffix(u[len(p):], "/")
		}
	}
	return u
}
