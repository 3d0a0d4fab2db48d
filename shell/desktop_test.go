//go:build linux

package shell_test

import (
	"strings"
	"testing"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/internal/desktoptest"
	"github.com/canopy-dev/canopy/internal/goldentest"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/shell"
)

// TestDesktop: on the desktop the root folder holds the apps; an app's
// windows and their controls are folders as a page's nodes are, and
// actions on their paths answer with what changed.
func TestDesktop(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a virtual desktop")
	}
	desktoptest.Use(t, desktoptest.Modes[1])
	ctx := t.Context()
	sess, err := canopy.Open(ctx, canopy.Config{Desktop: true, Rules: []policy.Option{policy.Apps("zenity")}})
	if err != nil {
		t.Fatalf("open the desktop: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	e := &env{t: t, ctx: ctx, sess: sess, sh: shell.New(sess.Session, shell.Options{})}
	out := e.run(`open_app zenity --entry "--title=Add item" "--text=Item name:"`)
	if !strings.Contains(out, `opened window "Add item"`) && !strings.Contains(out, `opened dialog "Add item"`) {
		t.Fatalf("open_app: %s", out)
	}
	got := e.transcript(
		"pwd", "ls /", "ls /apps",
		"cd /apps/zenity", "ls", "cd 'dialog:Add item'", "pwd", "ls",
		`type 'textbox:Item name' "milk"`,
		"cat 'textbox:Item name' | grep -v '^box'",
		"grep -r OK /apps",
		"click button:OK",
		"ls /apps",
	)
	goldentest.Check(t, "testdata/desktop.golden", got)
}
