package policy

import (
	"fmt"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// checkMiddlePaste refuses, below the sensitive tier, a middle click into
// a text field: on X (the desktop, a headful browser on Linux) it pastes
// the primary selection, the text another program last selected, which
// may be the user's, into the field and the reply. Reading another
// program's text needs sensitive, as reading the clipboard does. A middle
// click at a point with no node there is judged the same: what is under
// it is not known.
func (p *Policy) checkMiddlePaste(r Request) error {
	a := r.Action
	if p.tier >= action.Sensitive || a.Kind != action.Click || a.Button != "middle" {
		return nil
	}
	if n := r.Node; n != nil && !textField(n) {
		return nil
	}
	what := "click middle"
	if r.Target != "" {
		what += " " + r.Target
	}
	return fmt.Errorf("%s needs the sensitive tier: a middle click into a text field pastes the text another program selected; this session allows %s (--allow sensitive): %w", what, p.tier, ErrDenied)
}

// textField reports whether n takes typed text.
func textField(n *tree.Node) bool {
	switch n.Role {
	case "textbox", "searchbox", "combobox", "spinbutton":
		return true
	}
	return false
}
