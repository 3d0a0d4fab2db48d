//go:build linux

package workspace_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/session"
)

// TestRelaunch: the browser on the desktop is killed; the action that
// starts a new one says page state was lost, once.
func TestRelaunch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ws, s := openWorkspace(ctx, t)
	var err error
	nav := action.Action{Kind: action.Navigate, URL: testSite.URL("/login.html")}
	if _, err := s.Run(ctx, nav); err != nil {
		t.Fatal(err)
	}
	b := ws.Browser()
	if b == nil || b.PID() == 0 {
		t.Fatal("no launched browser")
	}
	if err := syscall.Kill(b.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The call right after may fail, before the connection noticed; by the
	// next one the browser is known gone and a new one starts.
	var r session.Reply
	for i := 0; i < 3; i++ {
		if r, err = s.Run(ctx, nav); err == nil {
			break
		}
		t.Logf("call %d after the kill: %v", i+1, err)
	}
	if err != nil || !strings.HasPrefix(r.Text, "note: the browser had closed or crashed; started a new one (page state was lost)\n") {
		t.Fatalf("after the kill: %v\n%s", err, r.Text)
	}
	if r, err = s.Run(ctx, nav); err != nil || strings.Contains(r.Text, "note:") {
		t.Errorf("the call after that: %v\n%s", err, r.Text)
	}
}
