package selector

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/canopy-dev/canopy/tree"
)

// SyntaxError is a selector that does not parse. Col is the 1-based column,
// in runes, of the offending character (one past the end for a selector that
// stops too early), so an agent can see where to fix it.
type SyntaxError struct {
	Col   int    // 1-based rune column
	Msg   string // what is wrong and, where possible, how to fix it
	Input string // the selector as given
}

// Error returns the one-line form, e.g.
// `selector column 18: expected a value after "name:"`.
func (e *SyntaxError) Error() string {
	return "selector column " + strconv.Itoa(e.Col) + ": " + e.Msg
}

// Caret returns the two-line form for terminals: the input, and a caret under
// the offending column. Line breaks and tabs in the input print as spaces so
// the caret stays under its column.
func (e *SyntaxError) Caret() string {
	in := strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\t', '\v', '\f', '\u2028', '\u2029', '\u0085':
			return ' '
		}
		return r
	}, e.Input)
	col := max(e.Col, 1)
	return in + "\n" + strings.Repeat(" ", col-1) + "^"
}

// NoMatchError is a strict resolution that found nothing an agent can act
// on. Closest holds up to five nodes that look most like what the selector
// asked for, best first, so the agent can retry with one of them (the
// executor mints refs for those printed without one).
type NoMatchError struct {
	Selector string // the selector in canonical form
	Closest  []Hit  // up to five near misses, best first, look-alikes with their context
}

// Nodes returns the near misses.
func (e *NoMatchError) Nodes() []*tree.Node { return hitNodes(e.Closest) }

// maxClosest is how many near misses a NoMatchError lists.
const maxClosest = 5

// Error returns e.g. `no element matches role:button name:"Sign on"; closest:
// button "Sign in" e12, link "Sign up" e14`.
func (e *NoMatchError) Error() string {
	var b strings.Builder
	if IsRef(e.Selector) {
		b.WriteString("no element has ref " + strings.TrimPrefix(e.Selector, "@") +
			" (it may be gone: take a new snapshot)")
	} else {
		b.WriteString("no element matches " + e.Selector)
	}
	if len(e.Closest) > 0 {
		b.WriteString("; closest: ")
		writeLines(&b, e.Nodes(), len(e.Closest), func(i int) string { return e.Closest[i].Context })
	}
	return b.String()
}

// AmbiguousError is a strict resolution that found several nodes. Matches
// holds all of them in document order, look-alikes with their context.
type AmbiguousError struct {
	Selector string // the selector in canonical form
	Matches  []Hit  // every match, in document order
}

// maxListed is how many matches an AmbiguousError lists before "… N more".
const maxListed = 10

// Error returns e.g. `3 elements match role:button name:Edit (add nth: or
// use a ref): button "Edit" e14 in row "john@example.com", button "Edit" e16
// in row "mary@example.com", …`.
func (e *AmbiguousError) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(e.Matches)))
	b.WriteString(" elements match ")
	b.WriteString(e.Selector)
	b.WriteString(" (add nth: or use a ref): ")
	writeLines(&b, e.Nodes(), maxListed, func(i int) string { return e.Matches[i].Context })
	return b.String()
}

// Nodes returns the matched nodes.
func (e *AmbiguousError) Nodes() []*tree.Node { return hitNodes(e.Matches) }

func hitNodes(hs []Hit) []*tree.Node {
	ns := make([]*tree.Node, len(hs))
	for i, h := range hs {
		ns[i] = h.Node
	}
	return ns
}

// writeLines writes up to limit nodes as tree lines, comma-separated, each
// with " in CONTEXT" when context gives one, then "… N more" for the rest.
func writeLines(b *strings.Builder, ns []*tree.Node, limit int, context func(int) string) {
	for i, n := range ns {
		if i == limit {
			b.WriteString(", … ")
			b.WriteString(strconv.Itoa(len(ns) - limit))
			b.WriteString(" more")
			return
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tree.Line(n))
		if context != nil {
			if c := context(i); c != "" {
				b.WriteString(" in ")
				b.WriteString(c)
			}
		}
	}
}

// errorf builds a SyntaxError at rune offset pos (0-based).
func (p *parser) errorf(pos int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Col: pos + 1, Msg: fmt.Sprintf(format, args...), Input: p.src}
}

// EditDistance is the optimal-string-alignment distance between a and b, in
// runes: insertions, deletions, substitutions and swaps of neighbours each
// cost one ("buton" and "butotn" are both one from "button"). Errors that
// list the closest names (selectors here, the shell's paths) rank by it.
func EditDistance(a, b string) int {
	if a == b {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	// Three rows suffice for the swap rule.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// closeEnough is the largest edit distance at which a word of this length
// still reads as a typo of another.
func closeEnough(word string) int {
	switch n := utf8.RuneCountInString(word); {
	case n <= 2:
		return 0
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	default:
		return 3
	}
}

// nearest returns the candidate nearest to word within closeEnough, or "".
// Ties go to the earlier candidate.
func nearest(word string, candidates []string) string {
	best, bestD := "", closeEnough(word)+1
	for _, c := range candidates {
		if d := EditDistance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
