package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// TestConfirmJudgesTheEffect: --confirm asks about what an action reaches,
// not only the node it names: the form's Pay button when typing submits
// it or Enter is pressed in it, the focused Pay button for Enter with no
// target, and the button under the centre of a group clicked.
func TestConfirmJudgesTheEffect(t *testing.T) {
	amount := &tree.Node{Role: "textbox", Name: "Amount", Ref: "e2", Bounds: &tree.Rect{X: 0, Y: 0, W: 100, H: 20}}
	pay := &tree.Node{Role: "button", Name: "Pay now", Ref: "e3", Bounds: &tree.Rect{X: 0, Y: 30, W: 100, H: 20}}
	form := &tree.Node{Role: "form", Name: "Checkout", Ref: "e1", Children: []*tree.Node{amount, pay}}
	del := &tree.Node{Role: "button", Name: "Delete all", Ref: "e5", Bounds: &tree.Rect{X: 200, Y: 10, W: 100, H: 40}}
	group := &tree.Node{Role: "group", Name: "Danger zone", Ref: "e4", Bounds: &tree.Rect{X: 150, Y: 0, W: 200, H: 60}, Children: []*tree.Node{del}}
	note := &tree.Node{Role: "textbox", Name: "Note", Ref: "e6"}
	page := &tree.Snapshot{Header: tree.Header{Kind: "tab", URL: "https://shop.example/"}, Root: &tree.Node{Role: "document", Children: []*tree.Node{form, group, note}}}

	p, err := Open(action.Act, Confirm(`name~:/delete|pay/i`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		a     action.Action
		node  *tree.Node
		focus *tree.Node
		asks  string // what the question names; "" asks nothing
	}{
		{"type then submit", action.Action{Kind: action.Type, Target: "e2", Text: "99", Submit: true}, amount, nil, `button "Pay now" e3`},
		{"type alone", action.Action{Kind: action.Type, Target: "e2", Text: "99"}, amount, nil, ""},
		{"Enter in the form", action.Action{Kind: action.Press, Target: "e2", Keys: "Enter"}, amount, nil, `button "Pay now" e3`},
		{"Enter on the focused button", action.Action{Kind: action.Press, Keys: "Enter"}, nil, pay, `button "Pay now" e3`},
		{"Tab with the focus on it", action.Action{Kind: action.Press, Keys: "Tab"}, nil, pay, `button "Pay now" e3`},
		{"keys elsewhere", action.Action{Kind: action.Press, Keys: "Enter"}, nil, note, ""},
		{"the group around Delete", action.Action{Kind: action.Click, Target: "e4"}, group, nil, `button "Delete all" e5`},
		{"the button itself", action.Action{Kind: action.Click, Target: "e3"}, pay, nil, "?"},
		{"another field", action.Action{Kind: action.Click, Target: "e6"}, note, nil, ""},
	} {
		for _, n := range []*tree.Node{amount, pay, note} {
			n.States = 0
		}
		if tc.focus != nil {
			tc.focus.States = tree.Focused
		}
		target := ""
		if tc.node != nil {
			target = tree.Line(tc.node)
		}
		permit, err := p.Permit(context.Background(), Request{Action: tc.a, Target: target, Node: tc.node, Page: page})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		q := permit.NeedsConfirm()
		switch {
		case tc.asks == "" && q != "":
			t.Errorf("%s: asks %q, want no question", tc.name, q)
		case tc.asks != "" && !strings.Contains(q, tc.asks):
			t.Errorf("%s: asks %q, want a question naming %s", tc.name, q, tc.asks)
		}
	}
}

// TestMiddlePaste: below sensitive, a middle click into a text field (which
// pastes X's primary selection) or at a point with no node is refused;
// onto a link it opens it, and passes; at sensitive anything passes.
func TestMiddlePaste(t *testing.T) {
	field := &tree.Node{Role: "textbox", Name: "Note", Ref: "e1"}
	link := &tree.Node{Role: "link", Name: "Docs", Ref: "e2"}
	act, sensitive := New(action.Act), New(action.Sensitive)
	click := func(p *Policy, n *tree.Node, button string) error {
		_, err := p.Permit(context.Background(), Request{Action: action.Action{Kind: action.Click, Target: "x", Button: button}, Node: n})
		return err
	}
	if err := click(act, field, "middle"); err == nil || !strings.Contains(err.Error(), "needs the sensitive tier: a middle click into a text field pastes") {
		t.Errorf("a middle click into a text field at act: %v", err)
	}
	if err := click(act, nil, "middle"); err == nil {
		t.Errorf("a middle click at a point with no node at act passed")
	}
	for _, ok := range []error{click(act, link, "middle"), click(act, field, "left"), click(sensitive, field, "middle")} {
		if ok != nil {
			t.Errorf("refused: %v", ok)
		}
	}
}
