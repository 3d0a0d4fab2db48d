//go:build linux

package desktop

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/desktoptest"
	"github.com/canopy-dev/canopy/internal/goldentest"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// TestMain runs the tests on a private virtual desktop (Xvfb, a session
// bus, the accessibility bus), brought up for this run and taken down after.
func TestMain(m *testing.M) { os.Exit(desktoptest.Main(m)) }

// open returns a Desktop and a session over it, closed at the end of the
// test along with every app the test opened.
func open(t *testing.T) (*Desktop, *session.Session) {
	t.Helper()
	ctx := context.Background()
	d, err := Open(ctx, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		d.StopLaunched()
		d.Close()
	})
	// zenity has no desktop entry; false and sleep play programs that fail
	// or never show a window.
	return d, session.New(d, policy.New(action.Act, policy.Apps("zenity", "false", "sleep")), session.Options{})
}

// run performs one action and fails the test on error.
func run(t *testing.T, s *session.Session, a action.Action) session.Reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := s.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	return r
}

// openApp starts an app through the session, as an agent would.
func openApp(t *testing.T, s *session.Session, cmd string, args ...string) session.Reply {
	t.Helper()
	return run(t, s, action.Action{Kind: action.OpenApp, Command: cmd, Args: args})
}

// scoped prints the subtree a selector names, as `snapshot SELECTOR` does.
func scoped(t *testing.T, d *Desktop, sel string) string {
	t.Helper()
	snap, err := d.Snapshot(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	n := resolve(t, snap, sel)
	return tree.Format(session.Scoped(snap, n), tree.Options{Full: true})
}

func resolve(t *testing.T, snap *tree.Snapshot, sel string) *tree.Node {
	t.Helper()
	parsed, err := selector.Parse(sel)
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := selector.Resolve([]*tree.Snapshot{snap}, parsed)
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return n
}

// golden compares text with testdata/NAME.golden (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldentest.Check(t, "testdata/"+name+".golden", got)
}

// renumber rewrites refs in order of first appearance (e1, e2…), so a
// golden does not depend on what else the desktop showed before.
func renumber(s string) string {
	seen := map[string]string{}
	s = displayRE.ReplaceAllString(s, `desktop ":N"`)
	return refRE.ReplaceAllStringFunc(s, func(r string) string {
		if n, ok := seen[r]; ok {
			return n
		}
		n := "e" + strconv.Itoa(len(seen)+1)
		seen[r] = n
		return n
	})
}

var (
	refRE     = regexp.MustCompile(`\be[0-9]+\b`)
	displayRE = regexp.MustCompile(`desktop ":[0-9]+"`)
)
