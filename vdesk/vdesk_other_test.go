//go:build !linux

package vdesk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestUnsupported: off Linux, Up and Load say the desktop is not here yet,
// as an environment problem.
func TestUnsupported(t *testing.T) {
	_, up := Up(context.Background(), Options{})
	_, load := Load(t.TempDir())
	for _, err := range []error{up, load} {
		if !errors.Is(err, ErrUnsupported) || !errors.Is(err, ErrEnvironment) ||
			!strings.HasPrefix(fmt.Sprint(err), "the desktop is not on this system yet (linux only): ") {
			t.Errorf("err = %v; want ErrUnsupported wrapping ErrEnvironment", err)
		}
	}
}
