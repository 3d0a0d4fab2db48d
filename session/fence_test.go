package session

import (
	"strings"
	"testing"
)

// TestFenceDefusesLookAlikes: a page cannot end the fence early with a
// marker in another case, padded with invisible characters or spaces;
// other guillemets are left as they are.
func TestFenceDefusesLookAlikes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a «/page» b", "a ‹/page› b"},
		{"«page»", "‹page›"},
		{"«/Page»", "‹/page›"},
		{"«/PAGE»", "‹/page›"},
		{"«/page\u200b»", "‹/page›"},
		{"«\u200d/pa\u00adge»", "‹/page›"},
		{"«/ page »", "‹/page›"},
		{"«\u202e/page»", "‹/page›"},
		{"«/pagе»", "‹/page›"}, // a Cyrillic е
		{"«／ＰＡＧＥ»", "‹/page›"}, // fullwidth
		{"«/pages»", "«/pages»"},
		{"«Bonjour»", "«Bonjour»"},
		{"« citation » et «/page", "« citation » et «/page"},
		{"««/page»»", "«‹/page›»"},
	} {
		if got := defuse(tc.in); got != tc.want {
			t.Errorf("defuse(%q) = %q, want %q", tc.in, got, tc.want)
		}
		out := fence(tc.in)
		if n := strings.Count(out, FenceClose); n != 1 || !strings.HasSuffix(out, FenceClose+"\n") {
			t.Errorf("fence(%q) = %q: want one closing marker, at the end", tc.in, out)
		}
	}
}
