package selector

import (
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, that every error is a
// *SyntaxError whose column lies within the input (or one past its end), and
// that every selector it accepts prints a canonical form that parses back to
// itself. Accepted selectors are also matched and resolved against the test
// fixture, so that evaluation cannot panic either.
func FuzzParse(f *testing.F) {
	for _, c := range validSelectors {
		f.Add(c.in)
	}
	for _, c := range invalidSelectors {
		f.Add(c.in)
	}
	for _, c := range matchCases {
		f.Add(c.sel)
	}
	snaps := fixture()
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T %v, want *SyntaxError", s, err, err)
			}
			if n := len([]rune(s)); se.Col < 1 || se.Col > n+1 {
				t.Fatalf("Parse(%q): column %d outside 1..%d: %v", s, se.Col, n+1, err)
			}
			if se.Input != s {
				t.Fatalf("Parse(%q): Input = %q", s, se.Input)
			}
			_ = se.Caret()
			return
		}
		canon := sel.String()
		if !utf8.ValidString(canon) {
			t.Fatalf("Parse(%q).String() = %q is not UTF-8", s, canon)
		}
		again, err := Parse(canon)
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, canon, err)
		}
		if got := again.String(); got != canon {
			t.Fatalf("canonical form not stable: %q → %q → %q", s, canon, got)
		}
		Match(snaps, sel)
		if _, _, err := Resolve(snaps, sel); err != nil {
			_ = err.Error()
		}
	})
}
