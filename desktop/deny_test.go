//go:build linux

package desktop

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// TestDeniedApp: with --apps '!zenity', at the sensitive tier, a zenity
// dialog on the real desktop cannot be clicked, typed into or activated,
// keys do not go to it while it has the focus, and open_app zenity starts
// nothing; the dialog is untouched, and a session without the deny
// clicks its button.
func TestDeniedApp(t *testing.T) {
	d, s := open(t)
	openApp(t, s, "zenity", "--entry", "--title=Denied", "--text=Name:")
	pol, err := policy.Open(action.Sensitive, policy.Apps("!zenity"))
	if err != nil {
		t.Fatal(err)
	}
	denied := session.New(d, pol, session.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, a := range []action.Action{
		{Kind: action.Click, Target: `window:Denied >> role:button name:OK`},
		{Kind: action.Type, Target: `window:Denied >> role:textbox`, Text: "typed"},
		{Kind: action.Activate, Target: `window:Denied`},
		{Kind: action.Press, Keys: "Enter"}, // the entry has the focus
	} {
		_, err := denied.Run(ctx, a)
		if !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "is in a window of zenity, an application --apps denies (!zenity), at every tier") {
			t.Errorf("%s: %v", a, err)
		}
	}
	_, err = denied.Run(ctx, action.Action{Kind: action.OpenApp, Command: "zenity", Args: []string{"--info", "--title=Second"}})
	if !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "open_app zenity is refused: --apps denies it (!zenity), at every tier") {
		t.Errorf("open_app of a denied app at sensitive: %v", err)
	}
	// Reading is not refused, and shows nothing was done.
	r, err := denied.Run(ctx, action.Action{Kind: action.Snapshot})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Text, "typed") || strings.Contains(r.Text, `"Second"`) || strings.Count(r.Text, "application \"zenity\"") != 1 {
		t.Errorf("the denied session changed the desktop:\n%s", r.Text)
	}
	snap, err := d.Snapshot(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	zenity := 0
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		if n.Role == "application" && n.Name == "zenity" {
			zenity++
		}
		return true
	})
	if zenity != 1 {
		t.Errorf("%d zenity applications on the desktop, want the one opened", zenity)
	}
	// The window was there to click all along.
	r = run(t, s, action.Action{Kind: action.Click, Target: `window:Denied >> role:button name:OK`})
	if !strings.Contains(r.Text, `closed dialog "Denied" (zenity)`) {
		t.Errorf("a session without the deny could not click OK:\n%s", r.Text)
	}
}
