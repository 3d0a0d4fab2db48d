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

// needsConfirm reports whether the node an action resolved to is one the
// user must confirm actions on.
func (p *Policy) needsConfirm(r Request) bool {
	if p.confirm == nil || r.Node == nil || r.Page == nil {
		return false
	}
	for _, n := range selector.Find([]*tree.Snapshot{r.Page}, p.confirm) {
		if n == r.Node {
			return true
		}
	}
	return false
}

// NeedsConfirm says the action may run only once the user said yes: the
// question to ask, or "".
func (p *Permit) NeedsConfirm() string {
	if p == nil {
		return ""
	}
	return p.confirm
}
