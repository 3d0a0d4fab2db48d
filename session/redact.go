package session

import (
	"strings"

	"github.com/canopy-dev/canopy/tree"
)

// A page can hand a typed credential back in many shapes (shapes.go):
// as typed, cut, upper-cased, spaced out, reversed, encoded. The redactor
// knows each credential's shapes and replaces any of them with
// «credential NAME», on the tree as it enters the session, every string
// of every node, before it is matched or formatted (so no selector can
// probe the value, no property shows it, and no cut at a name's length
// leaves a prefix), and on every text that leaves the session.

// redactor replaces credentials in text. The zero value redacts nothing.
type redactor struct {
	forms []secretForm
	// masks are the fields that received a credential, by ref: they show
	// «credential NAME» whatever the page does to their value.
	masks map[string]string
}

// mask remembers that the field ref received the credential name.
func (r *redactor) mask(ref, name string) {
	if ref == "" {
		return
	}
	if r.masks == nil {
		r.masks = map[string]string{}
	}
	r.masks[ref] = name
}

// add learns a credential's value under its name. A value it knows
// already takes the name it is typed by now; a shape of a credential it
// knows under the same name (a field's value cut by a maxlength) adds
// nothing.
func (r *redactor) add(value, name string) {
	if value == "" {
		return
	}
	for i, f := range r.forms {
		if f.value == value {
			r.forms[i].name = name
			return
		}
		if f.name == name && f.re.FindString(value) == value {
			return
		}
	}
	r.forms = append(r.forms, newForm(value, name))
}

// text replaces every form of every credential in s.
func (r *redactor) text(s string) string {
	if s == "" || len(r.forms) == 0 {
		return s
	}
	folded := fold(s)
	for _, f := range r.forms {
		if !f.mayHold(folded) {
			continue
		}
		if t := f.re.ReplaceAllLiteralString(s, "«credential "+f.name+"»"); t != s {
			s, folded = t, fold(t)
		}
	}
	return s
}

// empty says there is nothing to redact.
func (r *redactor) empty() bool { return len(r.forms) == 0 }

// tree redacts a snapshot in place: the header, and every string of every
// node (node). Its nodes may be the source's own (kept between reads):
// redacting is idempotent.
func (r *redactor) tree(snap *tree.Snapshot) {
	if snap == nil {
		return
	}
	// Fields marked as holding a credential (by this session or another
	// canopy on the same browser) teach the redactor their values first.
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		if n.Secret != nil {
			r.add(n.Secret.Value, n.Secret.Name)
		}
		return true
	})
	if r.empty() {
		return
	}
	r.header(&snap.Header)
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		r.node(n)
		return true
	})
}

// header redacts a snapshot's header, or a grafted page's.
func (r *redactor) header(h *tree.Header) {
	h.Title, h.URL = r.text(h.Title), r.text(h.URL)
	for i, n := range h.Notes {
		h.Notes[i] = r.text(n)
	}
	h.Page.Strings(r.text)
}

// node redacts every string a node holds: what the tree prints (name,
// value), what the shell's cat and the JSON model show (description, the
// link's URL, the id), what selectors match (the id, the value) and what
// the executor and extract lend or read (the hint, the frame's URL). Not
// the role and the keys: the source's own words, never the page's. A
// field that received a credential shows its mask whatever its value.
// TestRedactorEveryField keeps the list whole.
func (r *redactor) node(n *tree.Node) {
	n.Name, n.Value = r.text(n.Name), r.text(n.Value)
	n.Description, n.URL, n.ID = r.text(n.Description), r.text(n.URL), r.text(n.ID)
	n.Hint, n.Frame = r.text(n.Hint), r.text(n.Frame)
	if name, ok := r.masks[n.Ref]; ok && n.Value != "" {
		n.Value = "«credential " + name + "»"
	}
	if n.Page != nil {
		r.header(n.Page)
	}
}

// holds is the name of the credential the field n holds, or "": a field
// a credential was typed into (by this session, by ref, or by another
// canopy, marked on the page), or one whose value shows a credential's
// shape (a field the page re-rendered with the value, or pasted into).
func (r *redactor) holds(n *tree.Node) string {
	if n == nil {
		return ""
	}
	if n.Secret != nil {
		return n.Secret.Name
	}
	if name, ok := r.masks[n.Ref]; ok && n.Ref != "" {
		return name
	}
	if _, rest, ok := strings.Cut(n.Value, "«credential "); ok {
		if name, _, ok := strings.Cut(rest, "»"); ok {
			return name
		}
	}
	return ""
}

// Redact replaces, in place, every copy of a credential in snap that its
// marked fields reveal (tree.Node.Secret), for readers outside a session
// (canopy snapshot): the value a field holds and every shape of it on the
// page read «credential NAME».
func Redact(snap *tree.Snapshot) {
	var r redactor
	r.tree(snap)
}
