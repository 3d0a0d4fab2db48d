package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// TestAppsPatterns: --apps patterns. A glob allows the programs it
// matches at act; "!" denies at every tier: open_app of the program (by
// name, path, or the file a name leads to; in a batch too), and a deny
// wins over an allow. A pattern that does not parse stops Open with one
// line naming it.
func TestAppsPatterns(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_DATA_DIRS", filepath.Join(data, "none"))
	// realterm on $PATH, and alias-term, a link to it.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "realterm"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("realterm", filepath.Join(bin, "alias-term")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	for _, c := range []struct{ pattern, want string }{
		{"[", `--apps "[" is not a valid pattern`},
		{"!gtk[4-", `--apps "!gtk[4-" is not a valid pattern`},
		{"!", `--apps "!": a ! must be followed by the program to deny`},
	} {
		_, err := Open(action.Act, Apps("zenity", c.pattern, "!xterm"))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Apps(%q): %v, want %q", c.pattern, err, c.want)
		}
	}
	if _, err := Open(action.Act, Apps("", " zenity ", "!xterm")); err != nil {
		t.Errorf("empty and spaced patterns: %v", err)
	}

	ctx := context.Background()
	open := func(p *Policy, cmd string) error {
		_, err := p.Permit(ctx, Request{Action: action.Action{Kind: action.OpenApp, Command: cmd}})
		return err
	}
	act, err := Open(action.Act, Apps("gtk*-widget-factory", "zenity", "!zenity", "!realterm", "!XTerm", "!gtk4-*", "!/opt/*/bin/tool"))
	if err != nil {
		t.Fatal(err)
	}
	sensitive := New(action.Sensitive, Apps("!realterm", "!XTerm", "!gtk4-*", "!/opt/*/bin/tool"))
	for _, p := range []*Policy{act, sensitive} {
		for _, cmd := range []string{"realterm", "alias-term", filepath.Join(bin, "realterm"), "xterm", "/usr/bin/xterm", "XTERM", "gtk4-widget-factory", "/opt/x/bin/tool"} {
			if err := open(p, cmd); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "--apps denies it (!") || !strings.Contains(err.Error(), "at every tier") {
				t.Errorf("%s: open_app %s: %v", p.Tier(), cmd, err)
			}
		}
		batch := action.Action{Kind: action.Batch, Steps: []action.Action{
			{Kind: action.Snapshot}, {Kind: action.OpenApp, Command: "xterm"},
		}}
		if _, err := p.Permit(ctx, Request{Action: batch}); !errors.Is(err, ErrDenied) || !strings.HasPrefix(err.Error(), "step 2: open_app xterm is refused") {
			t.Errorf("%s: a batch that opens a denied app: %v", p.Tier(), err)
		}
	}
	if err := open(act, "zenity"); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "!zenity") {
		t.Errorf("allowed and denied: %v", err)
	}
	for _, cmd := range []string{"gtk3-widget-factory", "/usr/bin/gtk3-widget-factory"} {
		if err := open(act, cmd); err != nil {
			t.Errorf("a glob allows %s at act: %v", cmd, err)
		}
	}
	if err := open(act, "gtk3-demo"); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "needs the sensitive tier") {
		t.Errorf("a program no pattern names, at act: %v", err)
	}
	if err := open(sensitive, "/opt/x/bin/other"); err != nil {
		t.Errorf("a program no deny matches, at sensitive: %v", err)
	}
}

// TestAppsDenyNodes: an action on a node in a window of a denied
// application (found by walking the snapshot from its root) is refused at
// every tier, the application's own node too; keys typed with no target
// are refused when the focus is in one; readings are not refused, nor is
// anything in other applications or pages.
func TestAppsDenyNodes(t *testing.T) {
	termBtn := &tree.Node{Role: "button", Name: "Close", Ref: "e3"}
	termEntry := &tree.Node{Role: "textbox", Name: "Command", Ref: "e4"}
	term := &tree.Node{Role: "application", Name: "XTerm", Ref: "e1", Children: []*tree.Node{
		{Role: "window", Name: "bash", Ref: "e2", Children: []*tree.Node{termBtn, termEntry}},
	}}
	okBtn := &tree.Node{Role: "button", Name: "OK", Ref: "e7"}
	okEntry := &tree.Node{Role: "textbox", Name: "Name", Ref: "e8"}
	zen := &tree.Node{Role: "application", Name: "zenity", Ref: "e5", Children: []*tree.Node{
		{Role: "dialog", Name: "Add item", Ref: "e6", Children: []*tree.Node{okEntry, okBtn}},
	}}
	factory := &tree.Node{Role: "application", Name: "gtk4-widget-factory", Ref: "e9"}
	page := &tree.Snapshot{Header: tree.Header{Kind: "desktop", Title: ":1"}, Root: &tree.Node{Role: "desktop", Children: []*tree.Node{term, zen, factory}}}
	tab := &tree.Snapshot{Header: tree.Header{Kind: "tab", URL: "https://x.example"}, Root: &tree.Node{Role: "document", Children: []*tree.Node{{Role: "button", Name: "XTerm"}}}}

	ctx := context.Background()
	for _, tier := range []action.Tier{action.Act, action.Sensitive} {
		p, err := Open(tier, Apps("!xterm", "!gtk4-*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			kind    action.Kind
			node    *tree.Node
			page    *tree.Snapshot
			refused bool
		}{
			{action.Click, termBtn, page, true},
			{action.Type, termEntry, page, true},
			{action.Activate, term, page, true},
			{action.Click, factory, page, true},
			{action.Extract, termEntry, page, false},
			{action.Snapshot, term, page, false},
			{action.Click, okBtn, page, false},
			{action.Click, tab.Root.Children[0], tab, false},
			{action.Click, okBtn, nil, false},
		} {
			_, err := p.Permit(ctx, Request{Action: action.Action{Kind: c.kind, Target: "x"}, Target: tree.Line(c.node), Node: c.node, Page: c.page})
			if refused := errors.Is(err, ErrDenied); refused != c.refused || refused && !strings.Contains(err.Error(), "is in a window of") {
				t.Errorf("%s: %s %s: %v", tier, c.kind, tree.Line(c.node), err)
			}
		}
		keys := action.Action{Kind: action.Press, Keys: "ctrl+c"}
		termEntry.States, okEntry.States = tree.Focused, 0
		if _, err := p.Permit(ctx, Request{Action: keys, Page: page}); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), `the keys go to textbox "Command" e4`) {
			t.Errorf("%s: keys with the focus in a denied app: %v", tier, err)
		}
		termEntry.States, okEntry.States = 0, tree.Focused
		if _, err := p.Permit(ctx, Request{Action: keys, Page: page}); err != nil {
			t.Errorf("%s: keys with the focus elsewhere: %v", tier, err)
		}
		// A drag from an allowed app drops into a denied one: refused; the
		// other way round too.
		drag := action.Action{Kind: action.Drag, Target: "e8", To: "e4"}
		if _, err := p.Permit(ctx, Request{Action: drag, Node: okEntry, To: termEntry, Page: page}); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), `drag to textbox "Command" e4 is refused: it is in a window of XTerm`) {
			t.Errorf("%s: a drag into a denied app: %v", tier, err)
		}
		if _, err := p.Permit(ctx, Request{Action: drag, Target: "e4", Node: termEntry, To: okEntry, Page: page}); !errors.Is(err, ErrDenied) {
			t.Errorf("%s: a drag out of a denied app: %v", tier, err)
		}
		if _, err := p.Permit(ctx, Request{Action: drag, Node: okEntry, To: okBtn, Page: page}); err != nil {
			t.Errorf("%s: a drag inside an allowed app: %v", tier, err)
		}
	}
}
