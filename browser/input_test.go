package browser

import (
	"testing"

	"github.com/canopy-dev/canopy/keys"
)

// TestKeyRune: every key keys.Parse can return has a CDP key event.
func TestKeyRune(t *testing.T) {
	for _, k := range append(keys.Names(), " ", "+", "a", "A", "é") {
		if _, err := keyRune(k); err != nil {
			t.Errorf("keyRune(%q): %v", k, err)
		}
	}
	if r, _ := keyRune("Enter"); r != '\r' {
		t.Errorf("keyRune(Enter) = %q, want \\r", r)
	}
	if _, err := keyRune("NoSuchKey"); err == nil {
		t.Error("keyRune(NoSuchKey) did not fail")
	}
}
