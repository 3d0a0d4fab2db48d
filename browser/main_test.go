package browser

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/internal/goldentest"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/tokens"
	"github.com/canopy-dev/canopy/tree"
)

// testSite serves the test pages for the whole package run.
var testSite *site.Site

// counter counts real o200k tokens.
var counter *tokens.Counter

func TestMain(m *testing.M) {
	flag.Parse()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := site.Serve(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve test site:", err)
		os.Exit(1)
	}
	testSite = s
	if counter, err = tokens.New(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	s.Close()
	cancel()
	os.Exit(code)
}

// newBrowser launches a fresh headless Chromium (fresh refs) for one test.
// Tests fail, never skip, without a browser: CI installs one.
func newBrowser(t testing.TB) *Browser {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := New(ctx, Options{})
	if err != nil {
		t.Fatalf("launch browser: %v (install Chromium: apt-get install chromium)", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// load navigates b to a test page and returns its snapshot.
func load(t testing.TB, b *Browser, path string) (*tree.Snapshot, Stats) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := b.Navigate(ctx, testSite.URL(path), 0); err != nil {
		t.Fatalf("navigate %s: %v", path, err)
	}
	// A big page keeps its main thread busy after it loads (longer on a
	// loaded machine): canopy says the page does not answer, and a user
	// asks again until it does.
	snap, st, err := b.Snapshot(ctx, SnapshotOptions{})
	for errors.Is(err, ErrUnresponsive) && ctx.Err() == nil {
		snap, st, err = b.Snapshot(ctx, SnapshotOptions{})
	}
	if err != nil {
		t.Fatalf("snapshot %s: %v", path, err)
	}
	return snap, st
}

// eval runs JavaScript in the tab's main frame and returns its value.
func eval[T any](t testing.TB, b *Browser, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.browserCtx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %q: %v", js, err)
	}
	return v
}

var portRE = regexp.MustCompile(`127\.0\.0\.([12]):\d+`)

// stable replaces the test servers' random ports so text can be compared
// with golden files.
func stable(text string) string {
	return portRE.ReplaceAllString(text, "127.0.0.$1:PORT")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := "testdata/" + name + ".golden"
	goldentest.Check(t, path, got)
}

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
