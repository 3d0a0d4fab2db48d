package policy

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// TestChooser: below sensitive, a file chooser takes plain file names and
// paths inside the downloads and files folders, editing keys, and clicks
// on its buttons and fields; a path elsewhere, a hidden or home-relative
// name, a key that changes folder and a click on a place or a folder row
// need sensitive, which allows them.
func TestChooser(t *testing.T) {
	downloads, files := t.TempDir(), t.TempDir()
	name := &tree.Node{Role: "textbox", Name: "Name", Ref: "e2"}
	save := &tree.Node{Role: "button", Name: "Save", Ref: "e3", Bounds: &tree.Rect{W: 80, H: 30},
		Children: []*tree.Node{{Role: "label", Name: "Save", Bounds: &tree.Rect{W: 80, H: 30}}}}
	home := &tree.Node{Role: "row", Name: "Home", Ref: "e4"}
	up := &tree.Node{Role: "togglebutton", Name: "Documents", Ref: "e5"}
	chooser := &tree.Node{Role: "dialog", Name: "Save File", Ref: "e1", Chooser: true, Children: []*tree.Node{name, save, home, up}}
	other := &tree.Node{Role: "textbox", Name: "Search", Ref: "e6"}
	page := &tree.Snapshot{Root: &tree.Node{Role: "desktop", Children: []*tree.Node{
		{Role: "application", Name: "chromium", Children: []*tree.Node{chooser}},
		{Role: "application", Name: "mousepad", Children: []*tree.Node{other}},
	}}}
	act := New(action.Act, Files(files))
	permit := func(p *Policy, a action.Action, n *tree.Node) error {
		for _, x := range []*tree.Node{name, other} {
			x.States = 0
		}
		if n == nil {
			name.States = tree.Focused
		}
		_, err := p.Permit(context.Background(), Request{Action: a, Node: n, Page: page, Downloads: downloads})
		return err
	}
	typeIn := func(text string) action.Action { return action.Action{Kind: action.Type, Target: "e2", Text: text} }
	for _, ok := range []struct {
		a action.Action
		n *tree.Node
	}{
		{typeIn("q3-report.txt"), name},
		{typeIn(filepath.Join(downloads, "r.txt")), name},
		{typeIn(filepath.Join(files, "up.txt")), name},
		{action.Action{Kind: action.Press, Keys: "ctrl+a Backspace Enter"}, nil},
		{action.Action{Kind: action.Press, Keys: "ctrl+l"}, nil},
		{action.Action{Kind: action.Click, Target: "e3"}, save},
		{typeIn("/etc/x"), other}, // outside the chooser
	} {
		if err := permit(act, ok.a, ok.n); err != nil {
			t.Errorf("%s at act: %v", ok.a, err)
		}
	}
	for _, no := range []struct {
		a action.Action
		n *tree.Node
	}{
		{typeIn("/home/user/.bashrc"), name},
		{typeIn(filepath.Join(downloads, "..", "x")), name},
		{typeIn("~/.profile"), name},
		{typeIn(".bashrc"), name},
		{typeIn("sub/x.txt"), name},
		{action.Action{Kind: action.Press, Keys: "alt+ArrowUp"}, nil},
		{action.Action{Kind: action.Press, Keys: "/"}, nil},
		{action.Action{Kind: action.Press, Keys: "ctrl+h"}, nil},
		{action.Action{Kind: action.Click, Target: "e4"}, home},
		{action.Action{Kind: action.DoubleClick, Target: "e5"}, up},
	} {
		err := permit(act, no.a, no.n)
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), " a file chooser needs the sensitive tier") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s at act: %v, want a one-line refusal", no.a, err)
		}
		if err := permit(New(action.Sensitive), no.a, no.n); err != nil {
			t.Errorf("%s at sensitive: %v", no.a, err)
		}
	}
}
