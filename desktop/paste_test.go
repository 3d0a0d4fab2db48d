//go:build linux

package desktop

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/clipboard"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// TestPasteAtAct: at act, a paste shortcut pastes only text the agent
// chose. With another program's text on the clipboard (the user's,
// copied before the session), ctrl+v and shift+Insert are refused and
// nothing is pasted; after the agent's own copy in the app, or canopy's
// clipboard write, they paste; at sensitive, anything.
func TestPasteAtAct(t *testing.T) {
	d, _ := open(t)
	s := session.New(d, policy.New(action.Act), session.Options{Downloads: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	user, err := clipboard.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	const editor = `app:mousepad >> role:textbox`
	const userText = "USER-CLIPBOARD-TEXT"
	if err := user.Write(ctx, userText); err != nil {
		t.Fatal(err)
	}
	openApp(t, s, "mousepad")
	value := func() string {
		t.Helper()
		got, err := d.conn.Text(ctx, d.itemOf(t, editor).Ref)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, keys := range []string{"ctrl+v", "shift+Insert", "End ctrl+shift+v"} {
		_, err := s.Run(ctx, action.Action{Kind: action.Press, Target: editor, Keys: keys})
		if !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "press "+keys+" needs the sensitive tier: another program's text is on the clipboard") || strings.Contains(err.Error(), userText) {
			t.Errorf("press %s with the user's clipboard, at act: %v", keys, err)
		}
	}
	// A middle click pastes X's primary selection: refused too.
	if _, err := s.Run(ctx, action.Action{Kind: action.Click, Target: editor, Button: "middle"}); !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "a middle click into a text field pastes") {
		t.Errorf("a middle click into mousepad at act: %v", err)
	}
	if v := value(); strings.Contains(v, userText) {
		t.Fatalf("the user's clipboard was pasted: %q", v)
	}

	// The agent's own copy pastes.
	run(t, s, action.Action{Kind: action.Type, Target: editor, Text: "agent words"})
	run(t, s, action.Action{Kind: action.Press, Target: editor, Keys: "ctrl+a ctrl+c"})
	run(t, s, action.Action{Kind: action.Press, Target: editor, Keys: "End ctrl+v"})
	if v := value(); v != "agent wordsagent words" {
		t.Errorf("after the agent's copy and a paste: %q", v)
	}
	// The user copies again: refused again.
	if err := user.Write(ctx, userText); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, action.Action{Kind: action.Press, Target: editor, Keys: "ctrl+v"}); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("ctrl+v after the user copied again: %v", err)
	}
	// Canopy's own text pastes.
	run(t, s, action.Action{Kind: action.Clipboard, Text: "-canopy"})
	run(t, s, action.Action{Kind: action.Press, Target: editor, Keys: "End ctrl+v"})
	if v := value(); !strings.HasSuffix(v, "-canopy") || strings.Contains(v, userText) {
		t.Errorf("after canopy's write and a paste: %q", v)
	}
	// At sensitive, the user's text pastes.
	if err := user.Write(ctx, userText); err != nil {
		t.Fatal(err)
	}
	wide := session.New(d, policy.New(action.Sensitive), session.Options{})
	run(t, wide, action.Action{Kind: action.Press, Target: editor, Keys: "End ctrl+v"})
	if v := value(); !strings.HasSuffix(v, userText) {
		t.Errorf("at sensitive, the user's clipboard was not pasted: %q", v)
	}
}
