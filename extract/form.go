package extract

import (
	"strconv"
	"strings"

	"github.com/canopy-dev/canopy/tree"
)

// formControls are the roles whose value or state the form format reports.
var formControls = map[string]bool{
	"textbox": true, "searchbox": true, "combobox": true, "checkbox": true, "radio": true,
	"switch": true, "slider": true, "spinbutton": true, "listbox": true,
}

// formGroups are the containers controls are grouped under. An unnamed
// group is only a wrapper and is not printed; forms and radio groups are.
var formGroups = map[string]bool{"form": true, "group": true, "radiogroup": true}

// shownStates are the states worth reporting next to a value: whether the
// agent can change the control and whether the page accepts what is in it.
const shownStates = tree.Disabled | tree.Required | tree.Readonly | tree.Invalid

// Form reports the current value or state of every form control under root
// (root included), one per line in document order:
//
//	form "Sign in" e10
//	  textbox "Email" e13 required = "a@b.c"
//	  textbox "Password" e14 = (protected)
//	  checkbox "Remember me" e16 = checked
//	  radiogroup "Plan" e17
//	    radio "Free" e18 = not checked
//	  listbox "Colours" e20 = "Red", "Blue"
//
// It reads the cleaned tree rather than HTML because the tree holds the live
// values the user typed. Controls sit indented under the form, named group
// or radio group that holds them. Only disabled, required, readonly and
// invalid states are shown, before the "=". A protected (password) value is
// never printed, whatever the tree holds. No controls prints
// "no form controls".
func Form(root *tree.Node) string {
	var b strings.Builder
	writeForm(&b, root, 0)
	if b.Len() == 0 {
		return "no form controls"
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeForm(b *strings.Builder, n *tree.Node, depth int) {
	if n == nil {
		return
	}
	switch {
	case formControls[n.Role]:
		indent(b, depth)
		b.WriteString(controlLine(n))
		b.WriteByte('\n')
		return // a control's children (options, popups) are its value
	case formGroups[n.Role] && (n.Role != "group" || name(n) != "") && hasControl(n):
		indent(b, depth)
		b.WriteString(head(n))
		b.WriteByte('\n')
		depth++
	}
	for _, c := range n.Children {
		writeForm(b, c, depth)
	}
}

func indent(b *strings.Builder, depth int) {
	for range depth {
		b.WriteString("  ")
	}
}

func hasControl(n *tree.Node) bool {
	found := false
	tree.Walk(n, func(x *tree.Node) bool {
		if formControls[x.Role] {
			found = true
		}
		return !found
	})
	return found
}

// name is a node's name, or its hint when it has none.
func name(n *tree.Node) string {
	if s := tree.CollapseSpace(n.Name); s != "" {
		return s
	}
	return tree.CollapseSpace(n.Hint)
}

// head is `role "name" ref states`, the part of a line before any value.
func head(n *tree.Node) string {
	var b strings.Builder
	b.WriteString(n.Role)
	if s := name(n); s != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(s))
	}
	if n.Ref != "" {
		b.WriteByte(' ')
		b.WriteString(n.Ref)
	}
	if s := n.States & shownStates; s != 0 {
		b.WriteByte(' ')
		b.WriteString(s.String())
	}
	return b.String()
}

// controlLine is `role "name" ref states = value`.
func controlLine(n *tree.Node) string {
	return head(n) + " = " + value(n)
}

// value is a control's current value as shown after "=". It never returns a
// protected value.
func value(n *tree.Node) string {
	if n.States.Has(tree.Protected) {
		return "(protected)"
	}
	switch n.Role {
	case "checkbox", "radio", "switch":
		switch {
		case n.States.Has(tree.Mixed):
			return "mixed"
		case n.States.Has(tree.Checked):
			return "checked"
		}
		return "not checked"
	case "listbox":
		var sel []string
		tree.Walk(n, func(x *tree.Node) bool {
			if x.Role == "option" && x.States&(tree.Selected|tree.Checked) != 0 {
				sel = append(sel, strconv.Quote(name(x)))
			}
			return true
		})
		if len(sel) == 0 {
			return "(none selected)"
		}
		return strings.Join(sel, ", ")
	}
	return strconv.Quote(n.Value)
}
