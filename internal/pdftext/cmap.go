package pdftext

import "strings"

// cmap is a font's ToUnicode map: character codes of width bytes to text.
type cmap struct {
	width int
	codes map[uint32]string
}

// maxRange caps the codes one bfrange entry maps: a code space is at most
// two bytes in the fonts this reads.
const maxRange = 1 << 16

// parseCMap reads a ToUnicode CMap's bfchar and bfrange entries.
func parseCMap(data []byte) *cmap {
	c := &cmap{codes: map[uint32]string{}}
	l := &lexer{b: data}
	var ops []token
	for {
		t, ok := l.next()
		if !ok {
			break
		}
		if t.kind != 'o' {
			ops = append(ops, t)
			continue
		}
		switch t.text {
		case "begincodespacerange", "beginbfchar", "beginbfrange":
			ops = ops[:0]
			continue
		case "endcodespacerange":
			if len(ops) > 0 && ops[0].kind == 's' && c.width == 0 {
				c.width = len(ops[0].bytes)
			}
		case "endbfchar":
			for k := 0; k+1 < len(ops); k += 2 {
				if ops[k].kind == 's' && ops[k+1].kind == 's' {
					c.set(ops[k].bytes, utf16BE(ops[k+1].bytes))
				}
			}
		case "endbfrange":
			c.ranges(ops)
		}
		ops = ops[:0]
	}
	if c.width == 0 {
		c.width = 2
	}
	return c
}

// ranges reads a bfrange section's entries: <lo> <hi> <first> or
// <lo> <hi> [<each> …].
func (c *cmap) ranges(ops []token) {
	for k := 0; k+2 < len(ops); {
		lo, hi := ops[k], ops[k+1]
		if lo.kind != 's' || hi.kind != 's' {
			k++
			continue
		}
		a, b := code(lo.bytes), code(hi.bytes)
		if b < a || b-a >= maxRange {
			k += 3
			continue
		}
		if ops[k+2].kind == '[' {
			j := k + 3
			for n := a; j < len(ops) && ops[j].kind == 's'; j, n = j+1, n+1 {
				c.setCode(n, len(lo.bytes), utf16BE(ops[j].bytes))
			}
			if j < len(ops) && ops[j].kind == ']' {
				j++
			}
			k = j
			continue
		}
		dst := ops[k+2].bytes
		for n := a; n <= b; n++ {
			c.setCode(n, len(lo.bytes), utf16BE(bump(dst, int(n-a))))
		}
		k += 3
	}
}

// bump adds d to the last UTF-16 unit of dst.
func bump(dst []byte, d int) []byte {
	out := append([]byte{}, dst...)
	if len(out) < 2 {
		return out
	}
	v := int(out[len(out)-2])<<8 | int(out[len(out)-1])
	v += d
	out[len(out)-2], out[len(out)-1] = byte(v>>8), byte(v)
	return out
}

func code(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v
}

func (c *cmap) set(src []byte, text string) { c.setCode(code(src), len(src), text) }

func (c *cmap) setCode(n uint32, width int, text string) {
	if c.width == 0 {
		c.width = width
	}
	c.codes[n] = text
}

// decode maps a string's codes to text; a nil map (a simple font) reads
// the bytes as Latin-1, which holds ASCII.
func (c *cmap) decode(b []byte) string {
	if c == nil {
		return latin1(b)
	}
	var s strings.Builder
	for i := 0; i+c.width <= len(b); i += c.width {
		if t, ok := c.codes[code(b[i:i+c.width])]; ok {
			s.WriteString(t)
		}
	}
	return s.String()
}
