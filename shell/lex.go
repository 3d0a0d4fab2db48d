package shell

import (
	"fmt"
	"strings"
	"unicode"
)

// partKind says what a piece of a word is.
type partKind int

const (
	literal  partKind = iota // text as written (quotes removed)
	variable                 // $NAME, ${NAME}, $1, $@
	subst                    // $(command): its output's lines
)

// part is one piece of a word: `name:"Sign in"` is the literal `name:` and
// the double-quoted literal `Sign in`.
type part struct {
	kind  partKind
	text  string // the literal text, the variable's name, or the command's source
	quote rune   // 0, '\'' or '"'
	line  int    // where a substitution's command starts, for its errors
}

// word is one word of a command, as its parts; line and col say where it
// starts (1-based), for errors.
type word struct {
	parts     []part
	line, col int
}

// lit returns the word's text when it is one unquoted literal, else "".
// Keywords (for, do, done…) and operators' neighbours are read with it.
func (w word) lit() string {
	if len(w.parts) == 1 && w.parts[0].kind == literal && w.parts[0].quote == 0 {
		return w.parts[0].text
	}
	return ""
}

// tokKind says what a token is.
type tokKind int

const (
	tokWord tokKind = iota
	tokSemi         // ';'
	tokLine         // a newline
	tokPipe         // '|'
	tokEOF
)

// token is one word or operator of a script.
type token struct {
	kind      tokKind
	word      word
	line, col int
	off, end  int // rune offsets of the token in its source
}

// SyntaxError is a script that cannot be read: an unbalanced quote, a
// `for` without `done`. Line and Col are 1-based.
type SyntaxError struct {
	Line, Col int
	Msg       string
	// Incomplete says the script ended too soon — an open quote, a loop
	// without done — so a REPL reads another line instead of failing.
	Incomplete bool
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// lexer cuts a script into tokens. It follows the shell's quoting: '…'
// is literal, "…" is literal but for $ expansions and \" \\ \$ escapes,
// and outside quotes a backslash takes the next character as it is. The
// shell has no redirections, && or || of its own: >, <, & and || are a
// selector's (`role:row >> role:link`, `role:link || role:button`).
type lexer struct {
	rs        []rune
	i         int
	line, col int // of rs[i]
}

func lex(src string, firstLine int) ([]token, error) {
	l := &lexer{rs: []rune(src), line: firstLine, col: 1}
	var toks []token
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		t.end = l.i
		toks = append(toks, t)
		if t.kind == tokEOF {
			return toks, nil
		}
	}
}

func (l *lexer) peek(k int) rune {
	if l.i+k < len(l.rs) {
		return l.rs[l.i+k]
	}
	return 0
}

func (l *lexer) advance() rune {
	r := l.rs[l.i]
	l.i++
	if r == '\n' {
		l.line++
		l.col = 1
	} else {
		l.col++
	}
	return r
}

func (l *lexer) errorf(line, col int, f string, args ...any) error {
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(f, args...), Incomplete: l.i >= len(l.rs)}
}

// next reads one token.
func (l *lexer) next() (token, error) {
	for l.i < len(l.rs) {
		r := l.peek(0)
		switch {
		case r == '\\' && l.peek(1) == '\n': // a line continued
			l.advance()
			l.advance()
		case r == ' ' || r == '\t' || r == '\r':
			l.advance()
		case r == '#':
			for l.i < len(l.rs) && l.peek(0) != '\n' {
				l.advance()
			}
		default:
			goto token
		}
	}
	return token{kind: tokEOF, line: l.line, col: l.col, off: l.i}, nil
token:
	line, col, off := l.line, l.col, l.i
	switch l.peek(0) {
	case '\n':
		l.advance()
		return token{kind: tokLine, line: line, col: col, off: off}, nil
	case ';':
		l.advance()
		return token{kind: tokSemi, line: line, col: col, off: off}, nil
	case '|':
		if l.peek(1) != '|' { // || is a selector's "or", part of a word
			l.advance()
			return token{kind: tokPipe, line: line, col: col, off: off}, nil
		}
	}
	w, err := l.word()
	if err != nil {
		return token{}, err
	}
	return token{kind: tokWord, word: w, line: line, col: col, off: off}, nil
}

// word reads one word up to unquoted whitespace or an operator.
func (l *lexer) word() (word, error) {
	w := word{line: l.line, col: l.col}
	var lit strings.Builder
	var litQuote rune
	flush := func() {
		if lit.Len() > 0 || litQuote != 0 {
			w.parts = append(w.parts, part{kind: literal, text: lit.String(), quote: litQuote})
		}
		lit.Reset()
		litQuote = 0
	}
	for l.i < len(l.rs) {
		r := l.peek(0)
		switch {
		case r == '|' && l.peek(1) == '|':
			// A selector's "or": the shell has no || of its own, and
			// >>, && and ! are the selector's too.
			lit.WriteRune(l.advance())
			lit.WriteRune(l.advance())
		case unicode.IsSpace(r) || r == ';' || r == '|':
			flush()
			return w, nil
		case r == '\\':
			l.advance()
			if l.i < len(l.rs) {
				lit.WriteRune(l.advance())
			}
		case r == '\'':
			flush()
			line, col := l.line, l.col
			l.advance()
			for {
				if l.i >= len(l.rs) {
					return w, l.errorf(line, col, "unbalanced ' (the quote opened here is never closed)")
				}
				c := l.advance()
				if c == '\'' {
					break
				}
				lit.WriteRune(c)
			}
			litQuote = '\''
			flush()
		case r == '"':
			flush()
			if err := l.doubleQuoted(&w); err != nil {
				return w, err
			}
		case r == '$':
			p, ok, err := l.dollar(0)
			if err != nil {
				return w, err
			}
			if !ok {
				lit.WriteRune(l.advance())
				continue
			}
			flush()
			w.parts = append(w.parts, p)
		default:
			lit.WriteRune(l.advance())
		}
	}
	flush()
	return w, nil
}

// doubleQuoted reads "…" into w's parts.
func (l *lexer) doubleQuoted(w *word) error {
	line, col := l.line, l.col
	l.advance()
	var lit strings.Builder
	emitted := false
	flush := func(force bool) {
		if lit.Len() > 0 || (force && !emitted) {
			w.parts = append(w.parts, part{kind: literal, text: lit.String(), quote: '"'})
			emitted = true
		}
		lit.Reset()
	}
	for {
		if l.i >= len(l.rs) {
			return l.errorf(line, col, `unbalanced " (the quote opened here is never closed)`)
		}
		r := l.peek(0)
		switch {
		case r == '"':
			l.advance()
			flush(true)
			return nil
		case r == '\\' && strings.ContainsRune(`"\$`+"`", l.peek(1)):
			l.advance()
			lit.WriteRune(l.advance())
		case r == '$':
			p, ok, err := l.dollar('"')
			if err != nil {
				return err
			}
			if !ok {
				lit.WriteRune(l.advance())
				continue
			}
			flush(false)
			w.parts = append(w.parts, p)
			emitted = true
		default:
			lit.WriteRune(l.advance())
		}
	}
}

// dollar reads $NAME, ${NAME}, $1…$9, $@, $# or $(command) at l.i; ok is
// false for a $ that starts none of them (taken literally).
func (l *lexer) dollar(quote rune) (part, bool, error) {
	line, col := l.line, l.col
	switch c := l.peek(1); {
	case c == '(':
		l.advance()
		l.advance()
		start, sline := l.i, l.line
		depth := 1
		var q rune
		for {
			if l.i >= len(l.rs) {
				return part{}, false, l.errorf(line, col, "unbalanced $( (never closed with ))")
			}
			r := l.advance()
			switch {
			case q != 0 && r == '\\':
				if l.i < len(l.rs) {
					l.advance()
				}
			case q != 0:
				if r == q {
					q = 0
				}
			case r == '\'' || r == '"':
				q = r
			case r == '(':
				depth++
			case r == ')':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		return part{kind: subst, text: string(l.rs[start : l.i-1]), quote: quote, line: sline}, true, nil
	case c == '{':
		end := l.i + 2
		for end < len(l.rs) && l.rs[end] != '}' {
			end++
		}
		name := string(l.rs[l.i+2 : min(end, len(l.rs))])
		if end >= len(l.rs) || !validName(name) {
			return part{}, false, l.errorf(line, col, "bad ${…}: a variable name is letters, digits and _")
		}
		for l.i <= end {
			l.advance()
		}
		return part{kind: variable, text: name, quote: quote}, true, nil
	case c == '@' || c == '#' || (c >= '0' && c <= '9'):
		l.advance()
		l.advance()
		return part{kind: variable, text: string(c), quote: quote}, true, nil
	case c == '_' || unicode.IsLetter(c):
		l.advance()
		var b strings.Builder
		for l.i < len(l.rs) && (l.peek(0) == '_' || unicode.IsLetter(l.peek(0)) || unicode.IsDigit(l.peek(0))) {
			b.WriteRune(l.advance())
		}
		return part{kind: variable, text: b.String(), quote: quote}, true, nil
	}
	return part{}, false, nil
}

// validName reports whether s is a variable name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}
