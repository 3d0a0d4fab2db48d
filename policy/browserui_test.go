package policy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// browserDesk is a desktop with a Chromium window (its address bar in the
// toolbar, a find bar, canopy's page grafted in its document), another
// browser known by its name, and an editor.
type browserDesk struct {
	snap                          *tree.Snapshot
	omnibox, find, email, other   *tree.Node
	editorField, otherApp, button *tree.Node
	saveName                      *tree.Node
}

func newBrowserDesk() browserDesk {
	var d browserDesk
	d.omnibox = &tree.Node{Role: "textbox", Name: "Address and search bar", Ref: "e8", Value: "127.0.0.1:8080/login"}
	d.find = &tree.Node{Role: "textbox", Name: "Find", Ref: "e9"}
	d.button = &tree.Node{Role: "button", Name: "Reload", Ref: "e7"}
	d.email = &tree.Node{Role: "textbox", Name: "Email", Ref: "e2"}
	form := &tree.Node{Role: "form", Name: "Login", Ref: "e1", Children: []*tree.Node{d.email}}
	doc := &tree.Node{Role: tree.RoleDocument, Name: "Acme login", Page: &tree.Header{Kind: "tab", URL: "http://127.0.0.1:8080/login"},
		Frame: "http://127.0.0.1:8080/login", Children: []*tree.Node{form}}
	win := &tree.Node{Role: "window", Name: "Acme login - Chromium", Ref: "e5", Children: []*tree.Node{
		{Role: "toolbar", Ref: "e6", Children: []*tree.Node{d.button, d.omnibox}}, doc, d.find}}
	chromium := &tree.Node{Role: "application", Name: "Chromium", Ref: "e4", Children: []*tree.Node{win}}
	d.other = &tree.Node{Role: "textbox", Name: "Address and search bar", Ref: "e11"}
	d.otherApp = &tree.Node{Role: "application", Name: "Google Chrome", Ref: "e10", Children: []*tree.Node{
		{Role: "window", Name: "New Tab - Google Chrome", Children: []*tree.Node{{Role: "toolbar", Children: []*tree.Node{d.other}}}}}}
	d.saveName = &tree.Node{Role: "textbox", Name: "Name", Ref: "e14"}
	chromium.Children = append(chromium.Children, &tree.Node{Role: "dialog", Name: "Save File", Children: []*tree.Node{d.saveName}})
	d.editorField = &tree.Node{Role: "textbox", Name: "Text", Ref: "e13"}
	editor := &tree.Node{Role: "application", Name: "Mousepad", Ref: "e12", Children: []*tree.Node{
		{Role: "window", Name: "Untitled - Mousepad", Children: []*tree.Node{d.editorField}}}}
	d.snap = &tree.Snapshot{Header: tree.Header{Kind: "desktop"}, Root: &tree.Node{Role: "desktop", Children: []*tree.Node{chromium, d.otherApp, editor}}}
	return d
}

// TestBrowserUIRefused: at act, typing, setting a value, pressing keys
// (into the focused field when no target is named) and dropping onto a
// text field of the browser's own UI are refused with one line that names
// the rule; the page's fields, another app's, and keys that only leave the
// field are not; the sensitive tier allows it all.
func TestBrowserUIRefused(t *testing.T) {
	ctx := context.Background()
	d := newBrowserDesk()
	act := New(action.Act)
	for _, tc := range []struct {
		name  string
		a     action.Action
		node  *tree.Node
		to    *tree.Node
		focus []*tree.Node
		want  string // "" allowed
	}{
		{"type a URL", action.Action{Kind: action.Type, Target: "e8", Text: "javascript:alert(1)", Submit: true}, d.omnibox, nil, nil,
			`typing into the browser's address bar (textbox "Address and search bar" e8) needs the sensitive tier; use navigate (this session allows act) (--allow sensitive): not permitted`},
		{"set its value", action.Action{Kind: action.SetValue, Target: "e8", Text: "file:///etc/passwd"}, d.omnibox, nil, nil, "setting the value of the browser's address bar"},
		{"Enter on it", action.Action{Kind: action.Press, Target: "e8", Keys: "Enter"}, d.omnibox, nil, nil, "pressing keys in the browser's address bar"},
		{"Enter with its focus", action.Action{Kind: action.Press, Keys: "Enter"}, nil, nil, []*tree.Node{d.omnibox, d.email}, "pressing keys in the browser's address bar"},
		{"paste with its focus", action.Action{Kind: action.Press, Keys: "ctrl+v"}, nil, nil, []*tree.Node{d.email, d.omnibox}, "pressing keys in the browser's address bar"},
		{"drop onto it", action.Action{Kind: action.Drag, Target: "e2", To: "e8"}, d.email, d.omnibox, nil, "dropping onto the browser's address bar"},
		{"the find bar", action.Action{Kind: action.Type, Target: "e9", Text: "x"}, d.find, nil, nil, `typing into the browser's own text field (textbox "Find" e9)`},
		{"another Chromium by name", action.Action{Kind: action.Type, Target: "e11", Text: "chrome://version"}, d.other, nil, nil, "typing into the browser's address bar"},
		{"Tab out of it", action.Action{Kind: action.Press, Keys: "Tab"}, nil, nil, []*tree.Node{d.omnibox}, ""},
		{"Escape and F6", action.Action{Kind: action.Press, Target: "e8", Keys: "Escape shift+F6"}, d.omnibox, nil, nil, ""},
		{"click it", action.Action{Kind: action.Click, Target: "e8"}, d.omnibox, nil, nil, ""},
		{"the page's field", action.Action{Kind: action.Type, Target: "e2", Text: "a@b.c", Submit: true}, d.email, nil, nil, ""},
		{"Enter in the page", action.Action{Kind: action.Press, Keys: "Enter"}, nil, nil, []*tree.Node{d.email}, ""},
		{"an editor", action.Action{Kind: action.Type, Target: "e13", Text: "javascript:"}, d.editorField, nil, nil, ""},
		{"a browser button", action.Action{Kind: action.Press, Target: "e7", Keys: "Enter"}, d.button, nil, nil, ""},
		{"the Save dialog's name", action.Action{Kind: action.Type, Target: "e14", Text: "report.pdf", Submit: true}, d.saveName, nil, nil, ""},
	} {
		for _, n := range []*tree.Node{d.omnibox, d.email, d.find} {
			n.States = 0
		}
		for _, n := range tc.focus {
			n.States = tree.Focused
		}
		r := Request{Action: tc.a, Node: tc.node, To: tc.to, Page: d.snap}
		_, err := act.Permit(ctx, r)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: the refusal is not one line: %q", tc.name, err)
		}
		if _, err := New(action.Sensitive).Permit(ctx, r); err != nil {
			t.Errorf("%s at sensitive: %v", tc.name, err)
		}
	}
}
