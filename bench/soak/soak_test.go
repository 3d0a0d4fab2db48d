//go:build linux

package main

import (
	"context"
	"testing"
)

// TestSoak runs a short soak (200 mixed actions): no failure, and memory,
// goroutines, file descriptors and browser processes stay within their
// margins (go run ./bench/soak runs the full 1,000).
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium for a while")
	}
	if err := run(context.Background(), 200, 40); err != nil {
		t.Fatal(err)
	}
}
