package workspace_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/canopy-dev/canopy/internal/desktoptest"
	"github.com/canopy-dev/canopy/internal/site"
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
