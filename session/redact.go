package session

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/canopy-dev/canopy/tree"
)

// A page can hand a typed credential back in many shapes: as typed, cut
// by a maxlength, upper-cased, spaced out, URL-encoded in a GET form's
// URL, escaped in JSON or HTML, base64-encoded. The redactor knows each
// credential's shapes and replaces any of them with «credential NAME»,
// on the tree before it is matched or formatted (so no selector can probe
// the value and no cut at a name's length leaves a prefix) and on every
// text that leaves the session.

// minPrefix is the shortest cut-off copy of a credential that is
// redacted: a page that keeps the first 6 characters of a secret has
// shown enough of it.
const minPrefix = 6

// secretForm is one credential's shapes as a pattern.
type secretForm struct {
	name string
	re   *regexp.Regexp
}

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

// add learns a credential's value under its name.
func (r *redactor) add(value, name string) {
	if value == "" || slices.ContainsFunc(r.forms, func(f secretForm) bool { return f.name == name && f.re.MatchString(value) }) {
		return
	}
	r.forms = append(r.forms, secretForm{name: name, re: formsOf(value)})
}

// text replaces every form of every credential in s.
func (r *redactor) text(s string) string {
	for _, f := range r.forms {
		if f.re.MatchString(s) {
			s = f.re.ReplaceAllLiteralString(s, "«credential "+f.name+"»")
		}
	}
	return s
}

// empty says there is nothing to redact.
func (r *redactor) empty() bool { return len(r.forms) == 0 }

// tree redacts a snapshot in place: the header, and every node's name,
// value and description. Its nodes may be the source's own (kept between
// reads): redacting is idempotent.
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
	h := &snap.Header
	h.Title, h.URL = r.text(h.Title), r.text(h.URL)
	for i, n := range h.Notes {
		h.Notes[i] = r.text(n)
	}
	h.Page.Strings(r.text)
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		n.Name, n.Value = r.text(n.Name), r.text(n.Value)
		if name, ok := r.masks[n.Ref]; ok && n.Value != "" {
			n.Value = "«credential " + name + "»"
		}
		if n.Page != nil {
			n.Page.Title, n.Page.URL = r.text(n.Page.Title), r.text(n.Page.URL)
		}
		return true
	})
}

// formsOf builds one pattern for a value's shapes, case-insensitive: the
// value spaced out (any white space between its characters) or cut after
// at least minPrefix characters, and its encoded forms whole.
func formsOf(v string) *regexp.Regexp {
	alts := []string{spacedPrefix(v)}
	enc := []string{
		url.QueryEscape(v), url.PathEscape(v), html.EscapeString(v),
		base64.StdEncoding.EncodeToString([]byte(v)), base64.URLEncoding.EncodeToString([]byte(v)),
		base64.RawStdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v)),
		strings.ReplaceAll(url.QueryEscape(v), "+", "%20"),
	}
	if j, err := json.Marshal(v); err == nil {
		enc = append(enc, string(j[1:len(j)-1])) // escaped, as in a JSON string
	}
	enc = append(enc, strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v)) // the formatter's quoting
	for _, e := range enc {
		if e != v {
			alts = append(alts, regexp.QuoteMeta(e))
		}
	}
	// Longest first: an encoded form that contains the plain one wins.
	slices.SortStableFunc(alts[1:], func(a, b string) int { return len(b) - len(a) })
	re, err := regexp.Compile(`(?i)(?:` + strings.Join(append(alts[1:], alts[0]), "|") + `)`)
	if err != nil {
		return regexp.MustCompile(regexp.QuoteMeta(v)) // cannot fail
	}
	return re
}

// maxSpaced caps the characters the spaced pattern follows (RE2 nests
// groups at most 1,000 deep); a longer value's cut copies are redacted up
// to there, its whole copies by the plain form.
const maxSpaced = 400

// spacedPrefix is a pattern for v with any white space between its
// characters, cut after at least minPrefix of them (all of a shorter v).
func spacedPrefix(v string) string {
	runes := []rune(v)
	if len(runes) > maxSpaced {
		return regexp.QuoteMeta(v) + "|" + spacedPrefix(string(runes[:maxSpaced]))
	}
	need := min(len(runes), minPrefix)
	var b strings.Builder
	for i, r := range runes[:need] {
		if i > 0 {
			b.WriteString(`\s*`)
		}
		b.WriteString(regexp.QuoteMeta(string(r)))
	}
	rest := runes[need:]
	for _, r := range rest {
		b.WriteString(`(?:\s*` + regexp.QuoteMeta(string(r)))
	}
	b.WriteString(strings.Repeat(")?", len(rest)))
	if !utf8.ValidString(v) {
		return regexp.QuoteMeta(v)
	}
	return b.String()
}

// Redact replaces, in place, every copy of a credential in snap that its
// marked fields reveal (tree.Node.Secret), for readers outside a session
// (canopy snapshot): the value a field holds and every shape of it on the
// page read «credential NAME».
func Redact(snap *tree.Snapshot) {
	var r redactor
	r.tree(snap)
}
