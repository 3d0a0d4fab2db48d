//go:build linux

package workspace_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/desktoptest"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/workspace"
)

// testSite serves the test pages (on 127.0.0.1) for the whole run.
var testSite *site.Site

// TestMain runs the tests on a private virtual desktop with the test site.
func TestMain(m *testing.M) {
	ctx, cancel := context.WithCancel(context.Background())
	s, err := site.Serve(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve test site:", err)
		os.Exit(1)
	}
	testSite = s
	code := desktoptest.Main(m)
	s.Close()
	cancel()
	os.Exit(code)
}

// openWorkspace opens page and desktop in one tree with an act-tier
// session over it; both close at the end of the test.
func openWorkspace(ctx context.Context, t *testing.T) (*workspace.Workspace, *session.Session) {
	t.Helper()
	w, err := workspace.Open(ctx, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, session.New(w, policy.New(action.Act), session.Options{})
}
