package vdesk

import (
	"errors"
	"strings"
	"testing"
)

// TestErrUnsupported: the error of a system without virtual desktops is an
// environment problem (the CLI's exit code 2) and says so in the user's
// words.
func TestErrUnsupported(t *testing.T) {
	if !errors.Is(ErrUnsupported, ErrEnvironment) || errors.Is(ErrNoDesktop, ErrUnsupported) {
		t.Error("ErrUnsupported does not wrap ErrEnvironment alone")
	}
	if got := ErrUnsupported.Error(); !strings.HasPrefix(got, "the desktop is not on this system yet (linux only)") {
		t.Errorf("ErrUnsupported says %q", got)
	}
}
