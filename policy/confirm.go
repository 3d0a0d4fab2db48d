package policy

import (
	"fmt"

	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/tree"
)

// Confirm makes actions on nodes that pattern matches (a selector, such as
// `name~:/delete|pay|send/`) wait for the user's yes (--confirm): the
// permit says so (NeedsConfirm) and the executor asks through the client
// (MCP elicitation). A pattern that does not parse makes Open fail.
func Confirm(pattern string) Option {
	return func(p *Policy) {
		if pattern == "" {
			return
		}
		sel, err := selector.Parse(pattern)
		if err != nil {
			p.confirmErr = fmt.Errorf("--confirm %q: %w", pattern, err)
			return
		}
		p.confirm = sel
	}
}

// confirmed returns the node the user must confirm an action on: the
// first of the nodes it reaches (receivers: its target, the node under the
// pointer, the focused node for keys, the form's submitter) that the
// pattern matches; nil when none.
func (p *Policy) confirmed(r Request) *tree.Node {
	if p.confirm == nil || r.Page == nil {
		return nil
	}
	reached := receivers(r)
	if len(reached) == 0 {
		return nil
	}
	for _, n := range selector.Find([]*tree.Snapshot{r.Page}, p.confirm) {
		for _, x := range reached {
			if n == x {
				return x
			}
		}
	}
	return nil
}

// NeedsConfirm says the action may run only once the user said yes: the
// question to ask, or "".
func (p *Permit) NeedsConfirm() string {
	if p == nil {
		return ""
	}
	return p.confirm
}
