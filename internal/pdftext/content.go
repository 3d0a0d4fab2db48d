package pdftext

import (
	"strings"
	"unicode/utf16"
)

// token is one lexical item of a content stream or a dictionary.
type token struct {
	kind  byte   // 'n' number, '/' name, 's' string, '[' ']' '<' '>' (dict), 'o' operator
	text  string // a name's or operator's text
	bytes []byte // a string's bytes
}

// lexer splits PDF syntax into tokens.
type lexer struct {
	b []byte
	i int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	return strings.IndexByte("()<>[]{}/%", c) >= 0
}

// next returns the next token; ok is false at the end.
func (l *lexer) next() (token, bool) {
	for l.i < len(l.b) {
		c := l.b[l.i]
		switch {
		case isSpace(c):
			l.i++
		case c == '%':
			for l.i < len(l.b) && l.b[l.i] != '\n' && l.b[l.i] != '\r' {
				l.i++
			}
		case c == '(':
			return token{kind: 's', bytes: l.literal()}, true
		case c == '<' && l.i+1 < len(l.b) && l.b[l.i+1] == '<':
			l.i += 2
			return token{kind: '<'}, true
		case c == '>' && l.i+1 < len(l.b) && l.b[l.i+1] == '>':
			l.i += 2
			return token{kind: '>'}, true
		case c == '<':
			return token{kind: 's', bytes: l.hex()}, true
		case c == '[' || c == ']':
			l.i++
			return token{kind: c}, true
		case c == '/':
			l.i++
			return token{kind: '/', text: l.word()}, true
		case c == '{' || c == '}' || c == ')' || c == '>':
			l.i++
		default:
			w := l.word()
			if w == "" {
				l.i++
				continue
			}
			if (w[0] >= '0' && w[0] <= '9') || w[0] == '-' || w[0] == '+' || w[0] == '.' {
				return token{kind: 'n', text: w}, true
			}
			return token{kind: 'o', text: w}, true
		}
	}
	return token{}, false
}

// word reads a run of regular characters.
func (l *lexer) word() string {
	s := l.i
	for l.i < len(l.b) && !isSpace(l.b[l.i]) && !isDelim(l.b[l.i]) {
		l.i++
	}
	return string(l.b[s:l.i])
}

// literal reads a (string), its escapes undone.
func (l *lexer) literal() []byte {
	l.i++ // (
	var out []byte
	depth := 1
	for l.i < len(l.b) {
		c := l.b[l.i]
		l.i++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return out
			}
		case '\\':
			if l.i >= len(l.b) {
				return out
			}
			e := l.b[l.i]
			l.i++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r', '\n':
				if e == '\r' && l.i < len(l.b) && l.b[l.i] == '\n' {
					l.i++
				}
				continue // a line continued
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.i < len(l.b) && l.b[l.i] >= '0' && l.b[l.i] <= '7'; k++ {
						v = v*8 + int(l.b[l.i]-'0')
						l.i++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// hex reads a <hex string>.
func (l *lexer) hex() []byte {
	l.i++ // <
	var digits []byte
	for l.i < len(l.b) && l.b[l.i] != '>' {
		if v, ok := hexVal(l.b[l.i]); ok {
			digits = append(digits, v)
		}
		l.i++
	}
	l.i++ // >
	if len(digits)%2 == 1 {
		digits = append(digits, 0)
	}
	out := make([]byte, len(digits)/2)
	for k := range out {
		out[k] = digits[2*k]<<4 | digits[2*k+1]
	}
	return out
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// showText is the text a content stream shows (Tj, TJ, ' and "), each
// string decoded through the font set last (Tf), run together: a page's
// text is cut into pieces at every kerning, and a credential must read
// whole across them.
func showText(stream []byte, fonts map[string]*cmap) string {
	var b strings.Builder
	l := &lexer{b: stream}
	var ops []token
	var font *cmap
	for {
		t, ok := l.next()
		if !ok {
			return b.String()
		}
		if t.kind != 'o' {
			ops = append(ops, t)
			continue
		}
		switch t.text {
		case "Tf":
			if len(ops) >= 2 && ops[len(ops)-2].kind == '/' {
				font = fonts[ops[len(ops)-2].text]
			}
		case "Tj", "'", "\"":
			if len(ops) > 0 && ops[len(ops)-1].kind == 's' {
				b.WriteString(font.decode(ops[len(ops)-1].bytes))
			}
		case "TJ":
			start := len(ops) - 1
			for start >= 0 && ops[start].kind != '[' {
				start--
			}
			for _, o := range ops[max(start, 0):] {
				if o.kind == 's' {
					b.WriteString(font.decode(o.bytes))
				}
			}
		case "ID":
			l.skipImage()
		}
		ops = ops[:0]
	}
}

// skipImage skips an inline image's data, up to EI.
func (l *lexer) skipImage() {
	for l.i+2 < len(l.b) {
		if isSpace(l.b[l.i]) && l.b[l.i+1] == 'E' && l.b[l.i+2] == 'I' && (l.i+3 == len(l.b) || isSpace(l.b[l.i+3])) {
			l.i += 3
			return
		}
		l.i++
	}
	l.i = len(l.b)
}

// stringsIn lists the strings of a dictionary (the title, a link's URI),
// decoded as text strings: UTF-16 after its byte order mark, else bytes.
func stringsIn(dict []byte) []string {
	var out []string
	l := &lexer{b: dict}
	for {
		t, ok := l.next()
		if !ok {
			return out
		}
		if t.kind == 's' && len(t.bytes) > 0 {
			out = append(out, textString(t.bytes))
		}
	}
}

// textString decodes a PDF text string.
func textString(b []byte) string {
	if len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff {
		return utf16BE(b[2:])
	}
	return latin1(b)
}

func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func utf16BE(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return string(utf16.Decode(u))
}
