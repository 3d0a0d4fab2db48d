package selector

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/canopy-dev/canopy/tree"
)

// Selector is a parsed selector, ready to match any number of snapshots. It
// is immutable and safe for concurrent use.
type Selector struct {
	root *chain
}

// chain is `alt >> alt >> …`: each step matches among the strict descendants
// of the previous step's matches.
type chain struct{ steps []*alt }

// alt is `conj || conj || …` (or commas): the union of its conjs.
type alt struct{ conjs []*conj }

// conj is `unary && unary …` (or spaces): the intersection of its items,
// then its nth: picks.
type conj struct{ items []unary }

// unary is one of *not, *paren or *atom.
type unary interface{ write(b *strings.Builder) }

// not is `!x`: the universe minus x.
type not struct{ x unary }

// paren is `( chain )`, evaluated over the enclosing universe.
type paren struct{ c *chain }

// op is how an atom compares its value.
type op int

const (
	opEq    op = iota // KEY:VALUE — whole value (text: substring)
	opSub             // KEY~:VALUE — substring
	opRegex           // KEY:/re/flags
)

// The keys of atoms. keyRef is the atom of a bare ref (e12, @e12).
const (
	keyRole   = "role"
	keyName   = "name"
	keyText   = "text"
	keyValue  = "value"
	keyID     = "id"
	keyState  = "state"
	keyWindow = "window"
	keyApp    = "app"
	keyTab    = "tab"
	keyURL    = "url"
	keyNth    = "nth"
	keyRef    = "ref"
)

// keys lists the keys a selector may use, in the order messages list them.
var keys = []string{keyRole, keyName, keyText, keyValue, keyID, keyState, keyWindow, keyApp, keyTab, keyURL, keyNth}

// subKeys are the keys that take `~:`. text: is always a substring match and
// accepts `~:` as a synonym.
var subKeys = map[string]bool{keyName: true, keyValue: true, keyID: true, keyWindow: true, keyApp: true, keyTab: true, keyURL: true, keyText: true}

// scopeKeys are the keys that scope to a window, an app or a tab. A conj made
// only of them matches the scope node itself.
var scopeKeys = map[string]bool{keyWindow: true, keyApp: true, keyTab: true, keyURL: true}

// atom is one KEY:VALUE test or a ref.
type atom struct {
	key   string
	op    op
	val   string         // the value as given (unescaped); for opRegex the source between the slashes
	flags string         // regex flags, from "ism"
	re    *regexp.Regexp // compiled, for opRegex

	norm  string         // for opEq/opSub: the value lowercased and whitespace-collapsed
	roles []string       // role: the canonical roles val means
	state tree.State     // state: the state tested
	neg   bool           // state: true for enabled/unchecked, which test the state's absence
	nth   int            // nth: 1-based, negative from the end
	index int            // tab: the value as a tab index, or 0
	glob  *regexp.Regexp // url: a value with * as a whole-URL pattern
}

// String returns the selector in canonical form: keys in lowercase, role
// aliases resolved to their canonical role where that is one role, values
// quoted only when they must be, `,` written `||`, `&&` written as a space,
// refs without `@`, and single spaces around operators. Parsing the canonical
// form gives back the same canonical form.
func (s *Selector) String() string {
	var b strings.Builder
	s.root.write(&b)
	return b.String()
}

func (c *chain) write(b *strings.Builder) {
	for i, a := range c.steps {
		if i > 0 {
			b.WriteString(" >> ")
		}
		a.write(b)
	}
}

func (a *alt) write(b *strings.Builder) {
	for i, c := range a.conjs {
		if i > 0 {
			b.WriteString(" || ")
		}
		c.write(b)
	}
}

func (c *conj) write(b *strings.Builder) {
	for i, u := range c.items {
		if i > 0 {
			b.WriteByte(' ')
		}
		u.write(b)
	}
}

func (n *not) write(b *strings.Builder) {
	b.WriteByte('!')
	n.x.write(b)
}

func (p *paren) write(b *strings.Builder) {
	b.WriteByte('(')
	p.c.write(b)
	b.WriteByte(')')
}

func (a *atom) write(b *strings.Builder) {
	if a.key == keyRef {
		b.WriteString(a.val)
		return
	}
	b.WriteString(a.key)
	if a.op == opSub && a.key != keyText {
		b.WriteByte('~')
	}
	b.WriteByte(':')
	switch {
	case a.op == opRegex:
		b.WriteByte('/')
		b.WriteString(a.val)
		b.WriteByte('/')
		b.WriteString(a.flags)
	case a.key == keyRole:
		writeValue(b, roleDisplay(a.val))
	case a.key == keyState:
		if a.neg {
			b.WriteString(negStateName[a.state])
		} else {
			b.WriteString(a.state.String())
		}
	case a.key == keyNth:
		b.WriteString(strconv.Itoa(a.nth))
	default:
		writeValue(b, a.val)
	}
}

// Quote renders v as a selector value that reads back as v: bare when it
// can be, else quoted. Callers building selectors from text use it.
func Quote(v string) string {
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

// writeValue writes v bare when it reads back as itself, else quoted.
func writeValue(b *strings.Builder, v string) {
	if bareSafe(v) {
		b.WriteString(v)
		return
	}
	b.WriteByte('"')
	for _, r := range v {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// bareSafe reports whether v can be written without quotes: it does not start
// like a quoted string or a regex, and holds no space, control character,
// parenthesis, comma or operator.
func bareSafe(v string) bool {
	if v == "" || strings.ContainsAny(v[:1], `"'/`) {
		return false
	}
	for _, r := range v {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '(' || r == ')' || r == ',' {
			return false
		}
	}
	return !strings.Contains(v, "&&") && !strings.Contains(v, "||") && !strings.Contains(v, ">>")
}

// Wanted returns the one role and the whole name every node the selector
// matches must have, read from its last step when that is one conjunction
// holding role:ROLE (one role) and name:NAME; ok is false otherwise. A
// source that read a page only in part looks such nodes up in the rest
// (`role:button name:"Edit User 0500"`). The name is as given: the
// selector compares it ignoring case and spacing, a source's lookup may
// not, so a lookup that finds nothing proves nothing.
func (s *Selector) Wanted() (role, name string, ok bool) {
	steps := s.root.steps
	if len(steps) == 0 || len(steps[len(steps)-1].conjs) != 1 {
		return "", "", false
	}
	for _, it := range steps[len(steps)-1].conjs[0].items {
		a, isAtom := it.(*atom)
		if !isAtom || a.op != opEq {
			continue
		}
		switch {
		case a.key == keyRole && len(a.roles) == 1:
			role = a.roles[0]
		case a.key == keyName:
			name = a.val
		}
	}
	if role == "" || name == "" {
		return "", "", false
	}
	return role, name, true
}
