package tree

import (
	"unicode"
	"unicode/utf8"
)

// EstimateTokens is a cheap, slightly pessimistic estimate of the o200k token
// count of s, used to keep snapshots within their budget without loading a
// tokenizer at run time. Tests check it against the real tokenizer (package
// tokens) on real pages: it should rarely be under the true count.
//
// The model: a word of letters costs one token per six letters (a leading
// space joins it for free), a number one per three digits, a run of spaces
// one, and any other character one.
func EstimateTokens(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsLetter(r):
			j := i + size
			letters := 1
			for j < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[j:])
				if !unicode.IsLetter(r2) {
					break
				}
				j += sz
				letters++
			}
			n += (letters + 5) / 6
			i = j
		case unicode.IsDigit(r):
			j := i + size
			digits := 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
				digits++
			}
			n += (digits + 2) / 3
			i = j
		case r == ' ':
			j := i + 1
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j-i > 1 || j == len(s) || !isWordStart(s[j:]) {
				n++
			}
			i = j
		default:
			n++
			i += size
		}
	}
	return n
}

func isWordStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
