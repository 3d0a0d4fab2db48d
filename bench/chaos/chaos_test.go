//go:build linux

package main

import (
	"context"
	"testing"
)

// TestChaos injects 8 faults (the renderer, the browser, the page server,
// the client) between calls; the next call answers correctly after each
// (go run ./bench/chaos runs 40).
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium for a while")
	}
	r, err := run(context.Background(), 8, 2) // seed 2: two of each fault
	t.Log(r)
	if err != nil {
		t.Fatal(err)
	}
}
