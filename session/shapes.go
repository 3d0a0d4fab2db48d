package session

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shapes of a credential a page can make that canopy recognises: the
// value as typed, in any case, with white space or invisible characters
// between its characters; cut at the end (a maxlength) or at the front
// (a field whose first characters were deleted) as long as minPrefix
// characters are left; reversed, whole or cut; hex-encoded, whole or cut;
// and URL-, HTML-, JSON- and base64-encoded whole. A page's own cipher
// (ROT13, a hash) is not recognised: the page holds the value anyway.

// minPrefix is the shortest cut-off copy of a credential that is
// redacted: a page that keeps the first (or the last) 6 characters of a
// secret has shown enough of it.
const minPrefix = 6

// maxSpaced caps the characters a cut pattern follows (RE2 nests groups
// at most 1,000 deep); a longer value's cut copies are redacted up to
// there from each end, its whole copies by the plain form.
const maxSpaced = 400

// gap is what a page may put between a credential's characters and still
// show it: white space, and the invisible characters (zero-width spaces,
// soft hyphens) that format text without showing.
const gap = `[\s\p{Z}\p{Cf}]*`

// gapRune says whether a character is one gap allows; fold drops them.
func gapRune(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Z, unicode.Cf)
}

// secretForm is one credential's shapes as a pattern, and the anchors
// that tell cheaply whether a text may hold one.
type secretForm struct {
	name, value string
	re          *regexp.Regexp
	// anchors are folded strings (see fold) one of which the folded form
	// of any text that holds a shape contains: the first and the last
	// characters a cut keeps, of the value and of its reverse and hex
	// form, and each encoded form whole. Matching runs only on a text
	// that holds one: most of a page's strings are passed over at the
	// cost of a search for a few short strings.
	anchors []string
}

// newForm builds the shapes of value, under name. Bytes that are not
// UTF-8 are matched as a page shows them, as U+FFFD.
func newForm(value, name string) secretForm {
	f := secretForm{name: name, value: value}
	v := strings.ToValidUTF8(value, "\uFFFD")
	runes := []rune(v)
	rev := slices.Clone(runes)
	slices.Reverse(rev)
	hx := []rune(hex.EncodeToString([]byte(v)))
	alts := []string{
		prefixCut(runes, minPrefix, gap), suffixCut(runes, minPrefix, gap),
		prefixCut(rev, minPrefix, gap), suffixCut(rev, minPrefix, gap),
		prefixCut(hx, 2*minPrefix, ""), suffixCut(hx, 2*minPrefix, ""),
	}
	for _, x := range [][]rune{runes, rev} {
		need := min(len(x), minPrefix)
		f.anchors = append(f.anchors, fold(string(x[:need])), fold(string(x[len(x)-need:])))
	}
	need := min(len(hx), 2*minPrefix)
	f.anchors = append(f.anchors, fold(string(hx[:need])), fold(string(hx[len(hx)-need:])))
	for _, e := range encodings(v) {
		alts = append(alts, regexp.QuoteMeta(e))
		f.anchors = append(f.anchors, fold(e))
	}
	re, err := regexp.Compile(`(?i)(?:` + strings.Join(alts, "|") + `)`)
	if err != nil {
		re = regexp.MustCompile(`(?i)` + regexp.QuoteMeta(v)) // valid UTF-8: cannot fail
	}
	re.Longest() // the longest shape at a place wins: no tail is left over
	f.re = re
	return f
}

// encodings are value's shapes that are matched whole: as typed, and
// encoded for a URL, HTML, JSON, base64, hex and the formatter's quoting.
func encodings(v string) []string {
	enc := []string{
		v, url.QueryEscape(v), url.PathEscape(v), html.EscapeString(v),
		base64.StdEncoding.EncodeToString([]byte(v)), base64.URLEncoding.EncodeToString([]byte(v)),
		base64.RawStdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v)),
		strings.ReplaceAll(url.QueryEscape(v), "+", "%20"),
		hex.EncodeToString([]byte(v)),
		strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v), // the formatter's quoting
	}
	if j, err := json.Marshal(v); err == nil {
		enc = append(enc, string(j[1:len(j)-1])) // escaped, as in a JSON string
	}
	slices.Sort(enc)
	return slices.Compact(enc)
}

// prefixCut is a pattern for x with sep between its characters, cut after
// at least need of them (all of a shorter x).
func prefixCut(x []rune, need int, sep string) string {
	if len(x) > maxSpaced {
		x = x[:maxSpaced]
	}
	need = min(len(x), need)
	var b strings.Builder
	for i, r := range x[:need] {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(regexp.QuoteMeta(string(r)))
	}
	rest := x[need:]
	for _, r := range rest {
		b.WriteString(`(?:` + sep + regexp.QuoteMeta(string(r)))
	}
	b.WriteString(strings.Repeat(")?", len(rest)))
	return b.String()
}

// suffixCut is a pattern for x with sep between its characters, cut
// before at least need of them from its end (all of a shorter x).
func suffixCut(x []rune, need int, sep string) string {
	if len(x) > maxSpaced {
		x = x[len(x)-maxSpaced:]
	}
	need = min(len(x), need)
	head, tail := x[:len(x)-need], x[len(x)-need:]
	var b strings.Builder
	b.WriteString(strings.Repeat("(?:", len(head)))
	for _, r := range head {
		b.WriteString(regexp.QuoteMeta(string(r)) + sep + ")?")
	}
	for i, r := range tail {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(regexp.QuoteMeta(string(r)))
	}
	return b.String()
}

// mayHold says whether folded (a text's fold) may hold a shape of f.
func (f *secretForm) mayHold(folded string) bool {
	for _, a := range f.anchors {
		if strings.Contains(folded, a) {
			return true
		}
	}
	return false
}

// fold is s as the pattern sees it, for the anchors: every character
// folded as (?i) folds it (to the least of the characters it matches)
// and the characters gap allows dropped. A text the pattern matches
// folds to a string that holds the fold of each anchor of the match.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && !gapRune(r):
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
		case r < utf8.RuneSelf || gapRune(r):
		default:
			b.WriteRune(leastFold(r))
		}
	}
	return b.String()
}

// leastFold is the least character of r's case-folding orbit.
func leastFold(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}
