package browser

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/canopy-dev/canopy/tree"
)

// axDoc is the accessibility tree of one frame's document, as
// Accessibility.getFullAXTree returned it, with what is needed to place it.
type axDoc struct {
	target target.ID
	frame  cdp.FrameID
	byID   map[accessibility.NodeID]*accessibility.Node
	root   *accessibility.Node
	dom    *domFacts // the facts of the document's target; may be nil
	dx, dy float64   // offset from the document's coordinates to the page's
	// partial says the document was read on demand: a child a node lists
	// but byID lacks is unread (an elision), not an error. unread has the
	// unread children the read saw as nodes.
	partial bool
	unread  map[accessibility.NodeID]*accessibility.Node
}

func newAXDoc(tid target.ID, frame cdp.FrameID, nodes []*accessibility.Node) *axDoc {
	d := &axDoc{target: tid, frame: frame, byID: make(map[accessibility.NodeID]*accessibility.Node, len(nodes))}
	for _, n := range nodes {
		d.byID[n.NodeID] = n
	}
	for _, n := range nodes {
		if n.ParentID == "" {
			d.root = n
			break
		}
	}
	if d.root == nil && len(nodes) > 0 {
		d.root = nodes[0]
	}
	return d
}

// key is a node's identity for refs: its backend DOM id within its target.
func (d *axDoc) key(id cdp.BackendNodeID) string {
	if id == 0 {
		return ""
	}
	return string(d.target) + ":" + strconv.FormatInt(int64(id), 10)
}

// grafter returns the converted content of the frame that the <iframe>
// element with backend id owner (in doc's target) shows, or nil, and the
// URL of the frame's document (frameInfo.document), or "".
type grafter func(doc *axDoc, owner cdp.BackendNodeID) ([]*tree.Node, string)

// convert turns n and its subtree into tree nodes. An ignored node (a layout
// wrapper, a hidden element) yields its converted children, so hidden
// subtrees vanish — Chromium marks every node under them ignored too — and
// the rest moves up.
func (d *axDoc) convert(n *accessibility.Node, graft grafter) []*tree.Node {
	role := chromeRole(n)
	if role == "" { // inline text boxes, list markers
		return nil
	}
	var kids []*tree.Node
	var gap *tree.Node // the unread children since the last one read
	for _, id := range n.ChildIDs {
		c := d.byID[id]
		if c != nil {
			gap = nil
			kids = append(kids, d.convert(c, graft)...)
			continue
		}
		if !d.partial || isText(n) {
			continue // a text's inline text boxes are never shown
		}
		d.addUnread(&gap, &kids, id)
	}
	if n.Ignored {
		if dn := d.domNode(n.BackendDOMNodeID); dn != nil && dn.block {
			// An ignored block (a layout <div>) still parts its text
			// from its neighbours'.
			for _, k := range kids {
				if k.Role == tree.RoleText {
					k.Block = true
				}
			}
		}
		return kids
	}
	t := &tree.Node{
		Role:        role,
		Name:        valueString(n.Name),
		Description: valueString(n.Description),
		Key:         d.key(n.BackendDOMNodeID),
	}
	if role != tree.RoleText {
		t.Value = valueString(n.Value)
	}
	d.applyProperties(t, n.Properties)
	dn := d.domNode(n.BackendDOMNodeID)
	if dn != nil {
		if dn.bounds != nil {
			b := *dn.bounds
			b.X += d.dx
			b.Y += d.dy
			t.Bounds = &b
		}
		t.ID = dn.attrs["id"]
		t.Block = dn.block
		if dn.tag == "input" && strings.EqualFold(dn.attrs["type"], "password") {
			t.States |= tree.Protected
		}
		if name := dn.attrs[credentialAttr]; name != "" && t.Value != "" {
			t.Secret = &tree.Secret{Name: name, Value: t.Value}
			t.Value = "«credential " + name + "»"
		}
	}
	if role == tree.RoleFrame && graft != nil {
		kids, t.Frame = graft(d, n.BackendDOMNodeID)
	}
	t.Children = kids
	delegating := dn != nil && dn.clickable && !tree.IsActionRole(role) && role != tree.RoleDocument && d.delegate(t)
	if dn != nil && (dn.clickable || dn.pointer) && dn.tag != "label" && !delegating && clickCandidate(t) {
		t.States |= tree.Clickable
		t.Hint = dn.hint() // never its place: a name must not shift when the page moves
	}
	return []*tree.Node{t}
}

// addUnread counts child id in the placeholder of the run of unread
// children it belongs to, starting one in kids when *gap is nil.
func (d *axDoc) addUnread(gap **tree.Node, kids *[]*tree.Node, id accessibility.NodeID) {
	c := d.unread[id]
	kind := ""
	if c != nil && !c.Ignored {
		kind = chromeRole(c)
	}
	if *gap == nil {
		*gap = &tree.Node{Role: tree.RoleUnread, Name: kind}
		*kids = append(*kids, *gap)
	} else if (*gap).Name != kind {
		(*gap).Name = ""
	}
	g := *gap
	g.Unread++
	if c != nil {
		if k := d.key(c.BackendDOMNodeID); k != "" {
			g.UnreadKeys = append(g.UnreadKeys, k)
		}
	}
}

func (d *axDoc) domNode(id cdp.BackendNodeID) *domNode {
	if d.dom == nil || id == 0 {
		return nil
	}
	return d.dom.nodes[id]
}

// A <label> is clickable only to forward the click to its control, which
// has a ref of its own.
//
// clickCandidate reports whether click evidence on n means n itself is a
// control the tree would otherwise miss. Controls already have roles; a
// container that holds controls or a lot of text is a delegating ancestor
// (frameworks listen on a root element), not a control.
func clickCandidate(n *tree.Node) bool {
	switch n.Role {
	case tree.RoleDocument, tree.RoleFrame, tree.RoleText:
		return false
	}
	if tree.IsActionRole(n.Role) {
		return false
	}
	textLen, controls := 0, false
	for _, c := range n.Children {
		tree.Walk(c, func(x *tree.Node) bool {
			if tree.IsActionRole(x.Role) || x.States.Has(tree.Clickable) {
				controls = true
			}
			if x.Role == tree.RoleText {
				textLen += len(x.Name)
			}
			return !controls
		})
	}
	return !controls && textLen <= 80
}

// applyProperties sets states and the heading level from AX properties.
func (d *axDoc) applyProperties(t *tree.Node, props []*accessibility.Property) {
	for _, p := range props {
		v := valueString(p.Value)
		on := v == "true"
		switch p.Name {
		case accessibility.PropertyNameFocused:
			set(t, tree.Focused, on)
		case accessibility.PropertyNameDisabled:
			set(t, tree.Disabled, on)
		case accessibility.PropertyNameChecked:
			set(t, tree.Checked, on)
			set(t, tree.Mixed, v == "mixed")
		case accessibility.PropertyNameSelected:
			set(t, tree.Selected, on)
		case accessibility.PropertyNameExpanded:
			set(t, tree.Expanded, on)
			set(t, tree.Collapsed, v == "false")
		case accessibility.PropertyNamePressed:
			set(t, tree.Pressed, on)
			set(t, tree.Mixed, v == "mixed")
		case accessibility.PropertyNameRequired:
			set(t, tree.Required, on)
		case accessibility.PropertyNameReadonly:
			set(t, tree.Readonly, on)
		case accessibility.PropertyNameInvalid:
			set(t, tree.Invalid, v != "" && v != "false")
		case accessibility.PropertyNameBusy:
			set(t, tree.Busy, on)
		case accessibility.PropertyNameModal:
			set(t, tree.Modal, on)
		case accessibility.PropertyNameMultiline:
			set(t, tree.Multiline, on)
		case accessibility.PropertyNameURL:
			if t.Role == "link" {
				t.URL = v
			}
		case accessibility.PropertyNameLevel:
			if t.Role == "heading" {
				t.Level, _ = strconv.Atoi(v)
			}
		}
	}
}

func set(t *tree.Node, s tree.State, on bool) {
	if on {
		t.States |= s
	}
}

// valueString decodes an AX value (a JSON string, number or boolean) to text.
func valueString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	raw := []byte(v.Value)
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && !bytes.ContainsAny(raw[1:n-1], `\"`) {
		return string(raw[1 : n-1]) // no escapes: the common case, without a decoder
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			return s
		}
	}
	return strings.Trim(string(raw), `"`)
}

// chromeRole maps Chromium's role to canonical canopy role; "" drops the node
// and its subtree.
func chromeRole(n *accessibility.Node) string {
	r := valueString(n.Role)
	if c, ok := chromeRoles[r]; ok {
		return c
	}
	return strings.ToLower(r)
}

var chromeRoles = map[string]string{
	"RootWebArea":           tree.RoleDocument,
	"WebArea":               tree.RoleDocument,
	"StaticText":            tree.RoleText,
	"InlineTextBox":         "",
	"ListMarker":            "",
	"LineBreak":             "",
	"Iframe":                tree.RoleFrame,
	"IframePresentational":  tree.RoleFrame,
	"LabelText":             tree.RoleGeneric,
	"LayoutTable":           "table",
	"LayoutTableRow":        "row",
	"LayoutTableCell":       "cell",
	"DescriptionList":       "list",
	"DescriptionListTerm":   "term",
	"DescriptionListDetail": "definition",
	"DisclosureTriangle":    "button",
	"MenuListPopup":         tree.RoleGeneric,
	"MenuListOption":        "option",
	"SectionWithoutName":    "section",
	"Section":               "section",
	"image":                 "img",
	"Canvas":                "canvas",
	"Pre":                   "pre",
	"Abbr":                  "abbr",
	"Ruby":                  tree.RoleGeneric,
	"RubyAnnotation":        tree.RoleGeneric,
	"Legend":                tree.RoleGeneric,
	"Caption":               "caption",
	"Figcaption":            "figcaption",
}
