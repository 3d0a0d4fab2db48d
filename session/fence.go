package session

import (
	"strings"
	"unicode"

	"github.com/canopy-dev/canopy/action"
)

// The markers around text a reply takes from a page's content as it is
// (extract, evaluate) or from the clipboard (which any page or app may
// have filled): what lies between them is data and never instructions
// (docs/tiers.md), so a client can tell it from canopy's own lines. Tree and
// diff lines need none: a page's strings are quoted there, on one line
// each. The markers cost a few tokens a reply.
const (
	FenceOpen  = "«page»"
	FenceClose = "«/page»"
)

// fence wraps page text in the markers. Markers the page wrote itself are
// defused, so it cannot close the fence early and speak as canopy.
func fence(text string) string {
	if text == "" {
		return text
	}
	text = defuse(text)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return FenceOpen + "\n" + text + FenceClose + "\n"
}

// markerSpan bounds how far after a « defuse looks for its »: a marker
// padded with invisible characters is still short.
const markerSpan = 64

// defuse turns every look-alike of a marker in page text into ‹page› or
// ‹/page›: what a reader could take for one, whatever its case and with
// any invisible characters (zero-width spaces, joiners, soft hyphens,
// bidi marks) or spaces inside the guillemets. Other guillemets stay.
func defuse(text string) string {
	if !strings.ContainsRune(text, '«') {
		return text
	}
	var b strings.Builder
	for {
		i := strings.IndexRune(text, '«')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		rest := text[i+len("«"):]
		j := strings.IndexRune(rest[:min(len(rest), markerSpan)], '»')
		if j < 0 || strings.ContainsRune(rest[:j], '«') { // no », or a nearer « opens it
			b.WriteString("«")
			text = rest
			continue
		}
		switch markerWord(rest[:j]) {
		case "page":
			b.WriteString("‹page›")
		case "/page":
			b.WriteString("‹/page›")
		default:
			b.WriteString("«" + rest[:j] + "»")
		}
		text = rest[j+len("»"):]
	}
}

// lookAlikes are characters that read as those of "/page": Cyrillic,
// Greek and fullwidth letters, and other slashes.
var lookAlikes = map[rune]rune{
	'р': 'p', 'ρ': 'p', 'ｐ': 'p', 'Р': 'p', 'Ρ': 'p', 'Ｐ': 'p',
	'а': 'a', 'α': 'a', 'ａ': 'a', 'А': 'a', 'Α': 'a', 'Ａ': 'a',
	'ɡ': 'g', 'ｇ': 'g', 'Ｇ': 'g',
	'е': 'e', 'ε': 'e', 'ｅ': 'e', 'Е': 'e', 'Ε': 'e', 'Ｅ': 'e',
	'∕': '/', '⁄': '/', '／': '/', '⧸': '/',
}

// markerWord is what a reader sees between guillemets: the letters and
// slashes, lower-cased and look-alikes read as the letters of "/page",
// without what does not show (format characters, marks, spaces).
func markerWord(s string) string {
	var b strings.Builder
	for _, r := range s {
		if l, ok := lookAlikes[r]; ok {
			r = l
		}
		switch {
		case unicode.IsLetter(r), r == '/':
			b.WriteRune(unicode.ToLower(r))
		case unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.White_Space), unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// fenced says whether an action's text output is content canopy did not
// write: the page's, or the clipboard's.
func fenced(k action.Kind) bool {
	return k == action.Extract || k == action.Evaluate || k == action.Clipboard
}
