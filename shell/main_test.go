package shell_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/shell"
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

// env is a shell over a fresh browser session.
type env struct {
	t    *testing.T
	ctx  context.Context
	sess *canopy.Session
	sh   *shell.Shell
}

// newEnv opens a session at cfg's tier on page (a path of the test site;
// "" loads nothing) and a shell over it.
func newEnv(t *testing.T, page string, cfg canopy.Config) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("drives a real Chromium")
	}
	ctx := t.Context()
	sess, err := canopy.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open a session: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	if page != "" {
		// The page loads as a navigate step would, at the act tier; a
		// test at observe loads it through the browser.
		if cfg.Tier() >= action.Act {
			if _, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: testSite.URL(page)}); err != nil {
				t.Fatalf("load %s: %v", page, err)
			}
		} else if _, err := sess.Browser().Navigate(ctx, testSite.URL(page), 0); err != nil {
			t.Fatalf("load %s: %v", page, err)
		}
	}
	return &env{t: t, ctx: ctx, sess: sess, sh: shell.New(sess.Session, shell.Options{})}
}

// run runs src and returns its output; an error fails the test.
func (e *env) run(src string) string {
	e.t.Helper()
	out, err := e.try(src)
	if err != nil {
		e.t.Fatalf("%s:\n%v\noutput so far:\n%s", src, err, out)
	}
	return out
}

// try runs src and returns its output and error.
func (e *env) try(src string) (string, error) {
	var b strings.Builder
	err := e.sh.Run(e.ctx, src, &b)
	return stable(b.String()), err
}

var portRE = regexp.MustCompile(`127\.0\.0\.([12]):\d+`)

// stable replaces the test servers' random ports so text can be compared
// with golden files.
func stable(text string) string {
	text = boxRE.ReplaceAllString(text, "box: X,Y WxH")
	return portRE.ReplaceAllString(text, "127.0.0.$1:PORT")
}

// boxRE matches cat's box line: pixel sizes depend on fonts.
var boxRE = regexp.MustCompile(`(?m)^box: .*$`)
