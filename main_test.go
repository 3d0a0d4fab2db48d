package canopy_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/canopy-dev/canopy/internal/site"
)

// testSite serves the test pages for the whole package run.
var testSite *site.Site

func TestMain(m *testing.M) {
	flag.Parse()
	s, err := site.Serve(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve test site:", err)
		os.Exit(1)
	}
	testSite = s
	code := m.Run()
	s.Close()
	os.Exit(code)
}
