//go:build !linux

package desktop

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestOpenUnsupported: off Linux, Open says the desktop is not here yet,
// as an environment problem.
func TestOpenUnsupported(t *testing.T) {
	d, err := Open(context.Background(), Options{})
	if d != nil || !errors.Is(err, ErrUnsupported) || !errors.Is(err, ErrEnvironment) {
		t.Fatalf("Open = %v, %v; want nil and ErrUnsupported wrapping ErrEnvironment", d, err)
	}
	if !strings.HasPrefix(err.Error(), "the desktop is not on this system yet (linux only): ") {
		t.Errorf("Open's error = %q", err)
	}
}
