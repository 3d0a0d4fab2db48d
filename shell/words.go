package shell

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/canopy-dev/canopy/selector"
)

// This file keeps page text from becoming the shell's syntax. A page
// names its nodes, and those names come back to the shell as paths (what
// ls printed) and as lines (what find, grep and ls -l printed). A path
// segment escapes every character the path syntax reads, so a name is
// never a ref, a glob or another folder; a line is read as canopy wrote
// it, so the ref it names is the one after the quoted name, never a word
// inside it.

// segmentSyntax are the characters a path reads in a node's segment: the
// escape itself, the separator, the ref marker and the glob's. A name
// holding one is written with it escaped as %XX.
const segmentSyntax = "%/@*[]\\"

// escape writes a name for a role:name segment.
func escape(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case strings.ContainsRune(segmentSyntax, r), r < ' ', r == 0x7f,
			r == ' ' && (i == 0 || i == len(name)-1):
			fmt.Fprintf(&b, "%%%02X", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeWhole writes a name that is a segment on its own (an application
// on the desktop): as escape does, and ':' and '"' too, and its first
// character when the segment would otherwise read as something else — a
// ref (e5), . or .., or a line canopy printed (`foo e5`).
func escapeWhole(name string) string {
	s := strings.NewReplacer(":", "%3A", `"`, "%22").Replace(escape(name))
	if s == "." || s == ".." || selector.IsRef(s) || lineShaped(s) {
		r, n := utf8.DecodeRuneInString(s)
		if r < utf8.RuneSelf {
			s = fmt.Sprintf("%%%02X", r) + s[n:]
		}
	}
	return s
}

// unescape reads a segment's %XX escapes back; a '%' that starts none is
// itself, so a typed name such as "50% off" needs no escaping.
func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// splitRef cuts a segment's `@ref` suffix off: every '@' of a name is
// escaped, so the only '@' a printed segment holds marks its ref.
func splitRef(seg string) (name, ref string) {
	if i := strings.LastIndex(seg, "@"); i >= 0 && selector.IsRef(seg[i+1:]) {
		return seg[:i], seg[i+1:]
	}
	return seg, ""
}

// printed is what a line canopy printed names: a node by its ref, or a
// tab by its number.
type printed struct {
	ref string
	tab int
}

// lineShaped reports whether s is written as a line of the tree text
// (`link "Home" e5 …`, `button e7`, `"some text"`, `tab 2 "Help" …`)
// rather than as a path: its first word is a bare role and the next one
// is a quoted name, a ref or a tab's number, or it starts with a quote.
// A path never is: its segments are role:name, and a segment that is a
// name alone is escaped where it would be.
func lineShaped(s string) bool {
	if strings.HasPrefix(s, `"`) {
		return true
	}
	role, rest, ok := strings.Cut(s, " ")
	if !ok || !bareRole(role) {
		return false
	}
	next, _, _ := strings.Cut(rest, " ")
	return strings.HasPrefix(next, `"`) || isRefWord(next) || role == "tab" && isNumber(next)
}

// readLine reads a line canopy printed and returns what it names. The
// line is read with the tree text's own quoting: the node's ref is the
// word right after the quoted name (or the role, for an unnamed node),
// and nothing inside the name is ever taken for it. A line that is not
// one canopy wrote, or that names no node by ref, is an error that says
// so.
func readLine(s string) (printed, error) {
	notOurs := func(why string) error {
		return fmt.Errorf("%s is not a line canopy printed (%s); a line of find, grep or ls -l names its node by the ref after the name", quoteLine(s), why)
	}
	rest := s
	role := ""
	if !strings.HasPrefix(s, `"`) {
		role, rest, _ = strings.Cut(s, " ")
	}
	if role == "tab" {
		if n, after, _ := strings.Cut(rest, " "); isNumber(n) {
			if _, _, err := unquoteName(after); err != nil {
				return printed{}, notOurs("the tab's title is not quoted as canopy quotes it: " + err.Error())
			}
			tab, _ := strconv.Atoi(n)
			return printed{tab: tab}, nil
		}
	}
	if strings.HasPrefix(rest, `"`) {
		_, after, err := unquoteName(rest)
		if err != nil {
			return printed{}, notOurs("its name is not quoted as canopy quotes it: " + err.Error())
		}
		if after != "" && !strings.HasPrefix(after, " ") {
			return printed{}, notOurs("its quoted name runs into " + strconv.Quote(after))
		}
		rest = strings.TrimPrefix(after, " ")
	}
	if role == "" {
		return printed{}, fmt.Errorf("%s is a line of text canopy printed; it names no node by ref (act on the folder that holds it)", quoteLine(s))
	}
	word, _, _ := strings.Cut(rest, " ")
	if !isRefWord(word) {
		return printed{}, fmt.Errorf("%s names no node: a ref (e12) would follow the name; ls -l, grep and find print lines with refs", quoteLine(s))
	}
	return printed{ref: word}, nil
}

// unquoteName reads the quoted name at the start of s as the tree text
// writes it (tree.quote: `\"`, `\\`, `\n`, `\r` and `\t` escaped) and
// returns it and what follows the closing quote.
func unquoteName(s string) (name, after string, err error) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", fmt.Errorf("no opening quote")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 == len(s) {
				return "", "", fmt.Errorf("a \\ at the end")
			}
			i++
			switch e := s[i]; e {
			case '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				return "", "", fmt.Errorf("\\%c is no escape canopy writes", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("the quote is never closed")
}

// bareRole reports whether s may be a role as the tree text prints it:
// a word of letters, digits, '-' and '_' that starts with a letter.
func bareRole(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// isRefWord reports whether s is a ref exactly as canopy prints one: e12.
func isRefWord(s string) bool {
	return len(s) >= 2 && s[0] == 'e' && isNumber(s[1:])
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// quoteLine quotes a line for an error, cut to a readable length, so the
// error stays one line.
func quoteLine(s string) string {
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return strconv.Quote(s)
}

// oneLine writes s on one line: a line break is written \n.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`).Replace(s)
}
