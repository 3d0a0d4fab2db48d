package selector

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"

	"github.com/canopy-dev/canopy/tree"
)

// maxDepth bounds the nesting of parentheses and `!`, so that a hostile
// selector cannot exhaust the stack.
const maxDepth = 64

// Parse parses a selector (docs/selectors.md). Everything that can be checked without a
// tree is checked here — keys, roles, states, regexes, nth: — so that a typo
// fails at once with a column instead of silently matching nothing. Errors
// are *SyntaxError.
func Parse(s string) (*Selector, error) {
	p := &parser{src: s, in: []rune(s)}
	p.space()
	if p.eof() {
		return nil, p.errorf(0, "empty selector")
	}
	c, err := p.chain()
	if err != nil {
		return nil, err
	}
	p.space()
	if !p.eof() {
		// Every loop above stops only at the end or at a ")".
		return nil, p.errorf(p.pos, "unmatched \")\"")
	}
	return &Selector{root: c}, nil
}

// MustParse is Parse for selectors known to be valid (tests, constants): it
// panics on an error.
func MustParse(s string) *Selector {
	sel, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return sel
}

// IsRef reports whether s (trimmed) is a ref such as "e12" or "@e12", so a
// caller can take a fast path or tell a ref from a selector.
func IsRef(s string) bool {
	s = strings.TrimPrefix(strings.TrimSpace(s), "@")
	if len(s) < 2 || s[0] != 'e' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

type parser struct {
	src   string
	in    []rune
	pos   int
	depth int
}

func (p *parser) eof() bool { return p.pos >= len(p.in) }

// at reports whether the input at the current position starts with s.
func (p *parser) at(s string) bool {
	i := p.pos
	for _, r := range s {
		if i >= len(p.in) || p.in[i] != r {
			return false
		}
		i++
	}
	return true
}

// space skips white space and reports whether there was any.
func (p *parser) space() bool {
	start := p.pos
	for !p.eof() && unicode.IsSpace(p.in[p.pos]) {
		p.pos++
	}
	return p.pos > start
}

// atOperator reports whether a binary operator or the end of a group or of
// the input comes next: where an operand was expected, nothing is there.
func (p *parser) atOperator() bool {
	return p.eof() || p.at(")") || p.at(">>") || p.at("||") || p.at(",") || p.at("&&")
}

// opAt names the operator at the current position, for messages.
func (p *parser) opAt() string {
	for _, o := range []string{">>", "||", "&&", ",", ")"} {
		if p.at(o) {
			return o
		}
	}
	return ""
}

// operand checks that an operand follows the operator just read.
func (p *parser) operand(after string) error {
	p.space()
	if p.atOperator() {
		return p.errorf(p.pos, "expected a selector after %q", after)
	}
	return nil
}

func (p *parser) chain() (*chain, error) {
	c := &chain{}
	for {
		a, err := p.alt()
		if err != nil {
			return nil, err
		}
		c.steps = append(c.steps, a)
		p.space()
		if !p.at(">>") {
			return c, nil
		}
		p.pos += 2
		if err := p.operand(">>"); err != nil {
			return nil, err
		}
	}
}

func (p *parser) alt() (*alt, error) {
	a := &alt{}
	for {
		c, err := p.conj()
		if err != nil {
			return nil, err
		}
		a.conjs = append(a.conjs, c)
		p.space()
		var o string
		switch {
		case p.at("||"):
			o = "||"
		case p.at(","):
			o = ","
		default:
			return a, nil
		}
		p.pos += len(o)
		if err := p.operand(o); err != nil {
			return nil, err
		}
	}
}

func (p *parser) conj() (*conj, error) {
	c := &conj{}
	for {
		u, err := p.unary()
		if err != nil {
			return nil, err
		}
		c.items = append(c.items, u)
		spaced := p.space()
		switch {
		case p.at("&&"):
			p.pos += 2
			if err := p.operand("&&"); err != nil {
				return nil, err
			}
		case p.atOperator():
			return c, nil
		case !spaced:
			return nil, p.errorf(p.pos, "expected a space or an operator (&&, ||, >>) before %q", string(p.in[p.pos]))
		}
	}
}

func (p *parser) unary() (unary, error) {
	if p.atOperator() {
		// Only reachable at the start of the input or of a group: after an
		// operator, operand() has already complained.
		if o := p.opAt(); o == ")" {
			return nil, p.errorf(p.pos, "unmatched \")\"")
		} else if o != "" {
			return nil, p.errorf(p.pos, "expected a selector before %q", o)
		}
		return nil, p.errorf(p.pos, "expected a selector")
	}
	switch p.in[p.pos] {
	case '!':
		start := p.pos
		p.pos++
		if err := p.operand("!"); err != nil {
			return nil, err
		}
		if err := p.enter(start); err != nil {
			return nil, err
		}
		x, err := p.unary()
		p.depth--
		if err != nil {
			return nil, err
		}
		return &not{x: x}, nil
	case '(':
		open := p.pos
		p.pos++
		p.space()
		if p.at(")") {
			return nil, p.errorf(open, "empty parentheses")
		}
		if err := p.enter(open); err != nil {
			return nil, err
		}
		c, err := p.chain()
		p.depth--
		if err != nil {
			return nil, err
		}
		p.space()
		if !p.at(")") {
			return nil, p.errorf(open, "\"(\" is never closed")
		}
		p.pos++
		return &paren{c: c}, nil
	}
	return p.atom()
}

// enter goes one level deeper into parentheses or `!`.
func (p *parser) enter(pos int) error {
	if p.depth >= maxDepth {
		return p.errorf(pos, "selector nested too deeply (more than %d levels)", maxDepth)
	}
	p.depth++
	return nil
}

// atom parses KEY:VALUE, KEY~:VALUE or a ref.
func (p *parser) atom() (unary, error) {
	start := p.pos
	switch r := p.in[p.pos]; r {
	case '"', '\'':
		v, err := p.quoted()
		if err != nil {
			return nil, err
		}
		return nil, p.errorf(start, "%s needs a key: write name:%s or text:%s", quoteValue(v), quoteValue(v), quoteValue(v))
	case '/':
		src, flags, _, err := p.regex()
		if err != nil {
			return nil, err
		}
		re := "/" + src + "/" + flags
		return nil, p.errorf(start, "a regex needs a key: write name:%s or text:%s", re, re)
	case '&', '|', '>':
		return nil, p.errorf(start, "a single %q is not an operator: write %s", string(r), doubled[r])
	}
	for !p.eof() && !p.atWordEnd() && !p.at(":") && !p.at("~:") {
		p.pos++
	}
	word := string(p.in[start:p.pos])
	switch {
	case word == "": // ':' or '~:' with nothing before it
		return nil, p.errorf(start, "expected a key before %q (one of: %s)", p.opText(), strings.Join(keys, ", "))
	case p.at(":") || p.at("~:"):
		return p.keyed(word, start)
	case IsRef(word):
		return &atom{key: keyRef, val: strings.TrimPrefix(word, "@")}, nil
	}
	q := quoteValue(word)
	if rolesFor(word) != nil {
		return nil, p.errorf(start, "%q is not a selector: write name:%s, text:%s or role:%s", word, q, q, roleDisplay(word))
	}
	if _, err := tree.ParseState(word); err == nil {
		return nil, p.errorf(start, "%q is not a selector: write name:%s, text:%s or state:%s", word, q, q, strings.ToLower(word))
	}
	return nil, p.errorf(start, "%q is not a selector: write name:%s or text:%s", word, q, q)
}

// doubled tells how to write the operator a single &, | or > was meant as.
var doubled = map[rune]string{'&': "&& (or a space) for AND", '|': "|| (or a comma) for OR", '>': ">> for a descendant"}

func (p *parser) opText() string {
	if p.at("~:") {
		return "~:"
	}
	return ":"
}

// atWordEnd reports whether a bare word ends here: at white space, a
// parenthesis, a comma, or a two-character operator.
func (p *parser) atWordEnd() bool {
	if p.eof() {
		return true
	}
	switch r := p.in[p.pos]; {
	case unicode.IsSpace(r), r == '(', r == ')', r == ',':
		return true
	}
	return p.at("&&") || p.at("||") || p.at(">>")
}

// keyed parses the rest of an atom whose key (at start) has been read; the
// input is at ':' or '~:'.
func (p *parser) keyed(word string, start int) (unary, error) {
	key := strings.ToLower(word)
	o := opEq
	if p.at("~:") {
		o = opSub
	}
	if !contains(keys, key) {
		if s := nearest(key, keys); s != "" {
			return nil, p.errorf(start, "unknown key %q (did you mean %s?)", word, s)
		}
		return nil, p.errorf(start, "unknown key %q (keys: %s)", word, strings.Join(keys, ", "))
	}
	if o == opSub && !subKeys[key] {
		return nil, p.errorf(start, "%s does not take \"~:\" (only name, value, id, window, app, tab and url do): write %s:", key, key)
	}
	prefix := key + p.opText()
	p.pos += len(p.opText())
	vpos := p.pos
	if p.atWordEnd() {
		if !p.eof() && !unicode.IsSpace(p.in[p.pos]) {
			return nil, p.errorf(vpos, "expected a value after %q (quote a value that holds parentheses, commas or operators)", prefix)
		}
		return nil, p.errorf(vpos, "expected a value after %q", prefix)
	}
	a := &atom{key: key, op: o}
	switch p.in[p.pos] {
	case '"', '\'':
		v, err := p.quoted()
		if err != nil {
			return nil, err
		}
		a.val = v
	case '/':
		src, flags, re, err := p.regex()
		if err != nil {
			if key != keyURL {
				return nil, err
			}
			// url:/login is a path, not an unfinished regex.
			p.pos = vpos
			a.val = p.bare()
			break
		}
		if key == keyURL && !p.atWordEnd() {
			p.pos = vpos // url:/api/v1 is a path too
			a.val = p.bare()
			break
		}
		a.op, a.val, a.flags, a.re = opRegex, src, flags, re
	default:
		a.val = p.bare()
	}
	if err := p.check(a, prefix, vpos); err != nil {
		return nil, err
	}
	return a, nil
}

// bare reads a bare word.
func (p *parser) bare() string {
	start := p.pos
	for !p.atWordEnd() {
		p.pos++
	}
	return string(p.in[start:p.pos])
}

// quoted reads a string in double or single quotes. A backslash escapes the
// next character; \n, \r and \t are a line feed, a carriage return and a tab.
func (p *parser) quoted() (string, error) {
	open := p.pos
	q := p.in[p.pos]
	p.pos++
	var b strings.Builder
	for !p.eof() {
		r := p.in[p.pos]
		p.pos++
		switch {
		case r == q:
			return b.String(), nil
		case r == '\\' && !p.eof():
			e := p.in[p.pos]
			p.pos++
			switch e {
			case 'n':
				e = '\n'
			case 'r':
				e = '\r'
			case 't':
				e = '\t'
			}
			b.WriteRune(e)
		default:
			b.WriteRune(r)
		}
	}
	return "", p.errorf(open, "unterminated string: missing closing %s", string(q))
}

// regex reads /source/flags and returns the source as written (with its
// escapes) and the flags.
func (p *parser) regex() (src, flags string, re *regexp.Regexp, err error) {
	open := p.pos
	p.pos++
	start := p.pos
	for {
		if p.eof() {
			return "", "", nil, p.errorf(open, "unterminated regex: missing closing /")
		}
		r := p.in[p.pos]
		if r == '\\' && p.pos+1 < len(p.in) {
			p.pos += 2
			continue
		}
		if r == '/' {
			break
		}
		p.pos++
	}
	src = string(p.in[start:p.pos])
	p.pos++
	fstart := p.pos
	for !p.eof() && unicode.IsLetter(p.in[p.pos]) {
		if !strings.ContainsRune("ism", p.in[p.pos]) {
			return "", "", nil, p.errorf(p.pos, "unknown regex flag %q (flags: i, s, m)", string(p.in[p.pos]))
		}
		p.pos++
	}
	flags = string(p.in[fstart:p.pos])
	re, err = compile(src, flags)
	if err != nil {
		return "", "", nil, p.errorf(open, "%s", err.Error())
	}
	return src, canonFlags(flags), re, nil
}

// canonFlags returns the distinct flags in the order i, s, m.
func canonFlags(f string) string {
	var b strings.Builder
	for _, c := range "ism" {
		if strings.ContainsRune(f, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// compile compiles a regex source as written between slashes: `\/` stands
// for `/`, every other escape is the regexp package's.
func compile(src, flags string) (*regexp.Regexp, error) {
	var b strings.Builder
	if flags != "" {
		b.WriteString("(?" + canonFlags(flags) + ")")
	}
	rs := []rune(src)
	for i := 0; i < len(rs); i++ {
		if rs[i] == '\\' && i+1 < len(rs) {
			if rs[i+1] != '/' {
				b.WriteRune('\\')
			}
			b.WriteRune(rs[i+1])
			i++
			continue
		}
		b.WriteRune(rs[i])
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			return nil, errors.New("bad regex: " + se.Code.String() + ": `" + se.Expr + "`")
		}
		return nil, errors.New("bad regex: " + err.Error())
	}
	return re, nil
}

// negStateName names the states a selector may test for absence.
var negStateName = map[tree.State]string{tree.Disabled: "enabled", tree.Checked: "unchecked"}

// check validates an atom's value for its key and fills in what matching
// needs.
func (p *parser) check(a *atom, prefix string, vpos int) error {
	if a.op == opRegex {
		switch a.key {
		case keyState, keyNth:
			return p.errorf(vpos, "%s takes a plain value, not a regex", prefix)
		}
	}
	switch a.key {
	case keyText:
		if a.op == opEq {
			a.op = opSub // text: is always a substring match
		}
	case keyRole:
		if a.op == opRegex {
			break
		}
		a.roles = rolesFor(a.val)
		if a.roles == nil {
			if s := suggestRole(a.val); s != "" {
				return p.errorf(vpos, "unknown role %q (did you mean %s?)", a.val, s)
			}
			return p.errorf(vpos, "unknown role %q (roles are ARIA names such as button, link, textbox, checkbox, heading, row, dialog)", a.val)
		}
	case keyState:
		for st, name := range negStateName {
			if strings.EqualFold(strings.TrimSpace(a.val), name) {
				a.state, a.neg = st, true
				return nil
			}
		}
		st, err := tree.ParseState(strings.TrimSpace(a.val))
		if err != nil {
			names := append((^tree.State(0)).Names(), "enabled", "unchecked")
			if s := nearest(strings.ToLower(a.val), names); s != "" {
				return p.errorf(vpos, "unknown state %q (did you mean %s? states: %s)", a.val, s, strings.Join(names, ", "))
			}
			return p.errorf(vpos, "unknown state %q (states: %s)", a.val, strings.Join(names, ", "))
		}
		a.state = st
	case keyNth:
		n, err := strconv.Atoi(strings.TrimSpace(a.val))
		if err != nil {
			return p.errorf(vpos, "nth: takes a whole number, e.g. nth:2 or nth:-1 for the last")
		}
		if n == 0 {
			return p.errorf(vpos, "nth: counts from 1 (nth:1 is the first, nth:-1 the last)")
		}
		a.nth = n
	case keyTab:
		if n, err := strconv.Atoi(a.val); err == nil && n > 0 {
			a.index = n
		}
	case keyURL:
		if a.op == opEq && strings.Contains(a.val, "*") {
			parts := strings.Split(a.val, "*")
			for i, s := range parts {
				parts[i] = regexp.QuoteMeta(s)
			}
			g, err := regexp.Compile("(?is)^" + strings.Join(parts, ".*") + "$")
			if err != nil {
				return p.errorf(vpos, "url pattern too long")
			}
			a.glob = g
		}
	}
	if a.op != opRegex {
		a.norm = normText(a.val)
	}
	return nil
}

// quoteValue writes v as a selector value would be written, for messages.
func quoteValue(v string) string {
	var b strings.Builder
	b.WriteByte('"')
	b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v))
	b.WriteByte('"')
	return b.String()
}

// normText is the form in which names and values compare: whitespace
// collapsed and lowercased.
func normText(s string) string { return strings.ToLower(tree.CollapseSpace(s)) }
