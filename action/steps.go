package action

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// ParseSteps reads the step syntax of `canopy do` and scripts:
//
//	ACTION [SELECTOR] [ARG…] [FLAG…]
//
// Steps are separated by ';' or newlines. ARG is a quoted string ("…" or
// '…', with \" \\ \n escapes). A quoted string is part of the selector only
// when it directly follows a key (`name:"Sign in"`); a quoted string after
// whitespace is always an argument. Examples:
//
//	click role:button name:"Sign in"
//	type role:textbox name:Email "a@b.c" clear submit
//	select role:combobox name:Region "Asia"
//	press ctrl+s
//	navigate "http://127.0.0.1:8080/" ; back
//	scroll down 600
//	extract e12 table
//	wait role:dialog hidden
//
// A parse error names the step and the column in the whole script.
func ParseSteps(src string) ([]Action, error) {
	var out []Action
	for _, st := range splitSteps(src) {
		a, err := parseStep(st)
		if err != nil {
			col, cause := 1, err
			var se *stepError
			if errors.As(err, &se) {
				col, cause = se.col, se.err
			}
			return nil, fmt.Errorf("step %d (%q), column %d: %w", len(out)+1, strings.TrimSpace(st.text), col+st.offset, cause)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no steps: give at least one action, e.g. click role:button name:Save")
	}
	return out, nil
}

type stepText struct {
	text   string
	offset int // rune offset of text in the script
}

type stepError struct {
	col int // 1-based rune column inside the step
	err error
}

func (e *stepError) Error() string { return e.err.Error() }

func errAt(col int, f string, args ...any) error {
	return &stepError{col: col, err: fmt.Errorf(f, args...)}
}

// splitSteps cuts the script at ';' and newlines that are outside quotes and
// regexes, dropping empty steps and # comments.
func splitSteps(src string) []stepText {
	var out []stepText
	rs := []rune(src)
	start := 0
	var sc quoteScanner
	flush := func(end int) {
		t := string(rs[start:end])
		if s := strings.TrimSpace(t); s != "" && !strings.HasPrefix(s, "#") {
			out = append(out, stepText{text: t, offset: start})
		}
		start = end + 1
	}
	for i := 0; i < len(rs); {
		w, outside := sc.scan(rs, i, true)
		if outside && (rs[i] == ';' || rs[i] == '\n') {
			flush(i)
		}
		i += w
	}
	flush(len(rs))
	return out
}

// quoteScanner follows quoted strings ("…", '…' with backslash escapes) and
// /regex/ values (a '/' right after ':') through a step, so that separators
// inside them are not taken for separators.
type quoteScanner struct{ quote rune }

// scan reads rs[i] and returns how many runes it took (2 for an escape) and
// whether rs[i] is outside any quote. canOpen says whether a quote may start
// here.
func (q *quoteScanner) scan(rs []rune, i int, canOpen bool) (width int, outside bool) {
	r := rs[i]
	switch {
	case q.quote != 0:
		if r == '\\' {
			return 2, false
		}
		if r == q.quote {
			q.quote = 0
		}
		return 1, false
	case canOpen && (r == '"' || r == '\''):
		q.quote = r
		return 1, false
	case canOpen && r == '/' && i > 0 && rs[i-1] == ':':
		q.quote = '/'
		return 1, false
	}
	return 1, true
}

// token is one word of a step: a bare word (possibly a selector piece with
// quoted values inside) or a quoted argument.
type token struct {
	text   string // raw text for bare words, unquoted text for args
	quoted bool
	col    int // 1-based rune column in the step
	end    int // rune index just past the token
}

func tokenize(step string) ([]token, error) {
	rs := []rune(step)
	var toks []token
	i := 0
	for i < len(rs) {
		if unicode.IsSpace(rs[i]) {
			i++
			continue
		}
		start := i
		if rs[i] == '"' || rs[i] == '\'' {
			s, n, err := unquote(rs[i:])
			if err != nil {
				return nil, errAt(start+1, "%v", err)
			}
			toks = append(toks, token{text: s, quoted: true, col: start + 1, end: i + n})
			i += n
			continue
		}
		var sc quoteScanner
		for i < len(rs) && (sc.quote != 0 || !unicode.IsSpace(rs[i])) {
			w, _ := sc.scan(rs, i, i > start) // a quote opening a word is an argument
			i += w
		}
		if sc.quote != 0 {
			return nil, errAt(start+1, "unterminated %c in %q", sc.quote, string(rs[start:min(i, len(rs))]))
		}
		toks = append(toks, token{text: string(rs[start:i]), col: start + 1, end: i})
	}
	return toks, nil
}

// unquote reads a quoted string at the start of rs and returns its text and
// the number of runes it took.
func unquote(rs []rune) (string, int, error) {
	q := rs[0]
	var b strings.Builder
	for i := 1; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs):
			i++
			switch rs[i] {
			case 'n':
				b.WriteRune('\n')
			case 't':
				b.WriteRune('\t')
			default:
				b.WriteRune(rs[i])
			}
		case r == q:
			return b.String(), i + 1, nil
		default:
			b.WriteRune(r)
		}
	}
	return "", 0, fmt.Errorf("unterminated quoted string")
}

// aliases are step names that stand for a kind with some arguments set:
// `back` is `navigate back`, `open "url"` is `navigate "url"`, `submit
// TARGET` presses Enter in a form's field.
var aliases = map[string]Action{
	"back":     {Kind: Navigate, Nav: "back"},
	"forward":  {Kind: Navigate, Nav: "forward"},
	"reload":   {Kind: Navigate, Nav: "reload"},
	"open":     {Kind: Navigate},
	"submit":   {Kind: Press, Keys: "Enter"},
	"dblclick": {Kind: DoubleClick},
}

// Named returns the action a step name stands for — a kind's name, or an
// alias such as back, open or submit, with the arguments the alias sets —
// and false for a name that is neither. The shell takes its commands from
// it, so every step is a shell command.
func Named(name string) (Action, bool) {
	a, ok := aliases[strings.ToLower(name)]
	if !ok {
		a = Action{Kind: Kind(strings.ToLower(name))}
	}
	if _, ok := SpecOf(a.Kind); !ok || a.Kind == Batch {
		return Action{}, false
	}
	return a, true
}

// StepNames lists every name a step may start with: the kinds (but batch,
// which is a list of steps) and the aliases, sorted.
func StepNames() []string {
	var out []string
	for _, k := range Kinds() {
		if k != Batch {
			out = append(out, string(k))
		}
	}
	for name := range aliases {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func parseStep(st stepText) (Action, error) {
	toks, err := tokenize(st.text)
	if err != nil {
		return Action{}, err
	}
	head := toks[0]
	if head.quoted {
		return Action{}, errAt(head.col, "a step starts with an action such as click or type")
	}
	a, ok := Named(head.text)
	if !ok {
		return Action{}, errAt(head.col, "unknown action %q (actions: %s)", head.text, stepKinds())
	}
	spec, _ := SpecOf(a.Kind)
	sel, args, flags := split(toks[1:])
	p := stepParser{a: a, step: st.text, sel: sel, args: args, flags: flags, head: head}
	if err := p.parse(spec); err != nil {
		return Action{}, err
	}
	if err := p.a.Validate(); err != nil {
		return Action{}, errAt(head.col, "%v", err)
	}
	return p.a, nil
}

// stepKinds lists the kinds a step may name.
func stepKinds() string {
	var s []string
	for _, k := range Kinds() {
		if k != Batch {
			s = append(s, string(k))
		}
	}
	return strings.Join(s, ", ")
}

// split divides a step's words into selector words (bare, before the first
// quoted argument), quoted arguments, and bare flags after them.
func split(toks []token) (sel, args, flags []token) {
	i := 0
	for i < len(toks) && !toks[i].quoted {
		i++
	}
	sel = toks[:i]
	for _, t := range toks[i:] {
		if t.quoted {
			args = append(args, t)
		} else {
			flags = append(flags, t)
		}
	}
	return sel, args, flags
}

// stepParser holds a step's words while its kind's parse function takes
// the ones it understands; what is left of the selector words is the
// target.
type stepParser struct {
	a                Action
	step             string
	head             token
	sel, args, flags []token
}

// selector returns the source text spanned by the selector words.
func (p *stepParser) selector() string {
	if len(p.sel) == 0 {
		return ""
	}
	rs := []rune(p.step)
	return string(rs[p.sel[0].col-1 : p.sel[len(p.sel)-1].end])
}

// popWord removes and returns the last selector word when it is one of
// words (case-insensitive).
func (p *stepParser) popWord(words ...string) (string, bool) {
	if len(p.sel) == 0 {
		return "", false
	}
	last := p.sel[len(p.sel)-1].text
	for _, w := range words {
		if strings.EqualFold(last, w) {
			p.sel = p.sel[:len(p.sel)-1]
			return w, true
		}
	}
	return "", false
}

// popInt removes and returns the last selector word when it is an integer.
func (p *stepParser) popInt() (int, bool) {
	if len(p.sel) == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(p.sel[len(p.sel)-1].text)
	if err != nil {
		return 0, false
	}
	p.sel = p.sel[:len(p.sel)-1]
	return n, true
}

func (p *stepParser) arg(i int) string {
	if i < len(p.args) {
		return p.args[i].text
	}
	return ""
}

func (p *stepParser) tooMany(n int) error {
	if len(p.args) > n {
		return errAt(p.args[n].col, "%s takes %d quoted argument(s), got %d", p.a.Kind, n, len(p.args))
	}
	return nil
}

// missingArg is the error of a step that lacks its quoted argument.
func (p *stepParser) missingArg() error {
	return errAt(len([]rune(p.step))+1, "%s needs a quoted argument", p.a.Kind)
}

// text takes the one quoted argument as the action's text.
func (p *stepParser) text(required bool) error {
	if required && len(p.args) == 0 {
		return p.missingArg()
	}
	p.a.Text = p.arg(0)
	return p.tooMany(1)
}

// parse lets the kind's parse function take its words, then makes the
// remaining selector words the target.
func (p *stepParser) parse(spec Spec) error {
	if spec.parse != nil {
		if err := spec.parse(p); err != nil {
			return err
		}
	}
	if len(p.flags) > 0 {
		return errAt(p.flags[0].col, "unexpected %q after the arguments", p.flags[0].text)
	}
	if s := p.selector(); s != "" {
		if spec.Target == NoTarget {
			return errAt(p.sel[0].col, "%s takes no selector, got %q", p.a.Kind, s)
		}
		p.a.Target = s
	}
	return nil
}

// parseType reads `type TARGET "text" [clear] [submit]` and
// `type TARGET credential:NAME [clear] [submit]`.
func parseType(p *stepParser) error {
	a := &p.a
	if len(p.args) == 0 {
		// No quoted text: the flags are the selector's last words.
		for {
			w, ok := p.popWord("clear", "submit")
			if !ok {
				break
			}
			a.Clear, a.Submit = a.Clear || w == "clear", a.Submit || w == "submit"
		}
		if n := len(p.sel); n > 0 && strings.HasPrefix(strings.ToLower(p.sel[n-1].text), "credential:") {
			a.Credential = p.sel[n-1].text[len("credential:"):]
			p.sel = p.sel[:n-1]
			if a.Credential == "" {
				return errAt(p.head.col, "type credential: needs the credential's name, e.g. credential:github")
			}
			return nil
		}
		return errAt(len([]rune(p.step))+1, `type needs the text in quotes, or a credential by name: type role:textbox name:Email "a@b.c", type role:textbox name:Password credential:github`)
	}
	for _, f := range p.flags {
		switch strings.ToLower(f.text) {
		case "clear":
			a.Clear = true
		case "submit":
			a.Submit = true
		default:
			return errAt(f.col, "type takes the flags clear and submit after the text, not %q", f.text)
		}
	}
	p.flags = nil
	a.Text = p.arg(0)
	return p.tooMany(1)
}

// parseTabs reads `tabs list`, `tabs new "url"`, `tabs switch N`, `tabs
// close [N]`.
func parseTabs(p *stepParser) error {
	if len(p.sel) > 0 {
		p.a.Nav = strings.ToLower(p.sel[0].text)
		if len(p.sel) > 1 {
			n, err := strconv.Atoi(p.sel[1].text)
			if err != nil {
				return errAt(p.sel[1].col, "tabs %s takes a tab number, not %q", p.a.Nav, p.sel[1].text)
			}
			p.a.Tab = n
		}
		p.sel = nil
	}
	p.a.URL = p.arg(0)
	return nil
}

// parseWait reads `wait TARGET [state]`, `wait text "…"`, `wait url "…"`
// and `wait quiet`.
func parseWait(p *stepParser) error {
	a := &p.a
	a.State, _ = p.popWord(waitStates...)
	switch {
	case len(p.sel) == 1 && len(p.args) == 0 && strings.EqualFold(p.sel[0].text, "quiet"):
		a.Quiet, p.sel = true, nil
	case len(p.sel) == 1 && strings.EqualFold(p.sel[0].text, "text"):
		a.Text, p.sel = p.arg(0), nil
	case len(p.sel) == 1 && strings.EqualFold(p.sel[0].text, "url"):
		a.URL, p.sel = p.arg(0), nil
	case len(p.args) > 0:
		a.State = p.arg(0)
	}
	return nil
}

// parseOpenApp reads `open_app mousepad "report.txt"`: the command bare or
// quoted, then its arguments, bare or quoted.
func parseOpenApp(p *stepParser) error {
	var words []string
	for _, ts := range [][]token{p.sel, p.args, p.flags} {
		for _, t := range ts {
			words = append(words, t.text)
		}
	}
	p.sel, p.args, p.flags = nil, nil, nil
	if len(words) > 0 {
		p.a.Command, p.a.Args = words[0], words[1:]
	}
	return nil
}

// parseAt reads a point, `at X,Y`, from the end of the selector words.
func parseAt(p *stepParser) error {
	n := len(p.sel)
	if n < 2 || !strings.EqualFold(p.sel[n-2].text, "at") {
		return nil
	}
	p.a.At = p.sel[n-1].text
	p.sel = p.sel[:n-2]
	return nil
}
