package tree

import (
	"encoding/json"
	"fmt"
	"strings"
)

// State is a set of true states. Only true states are ever printed, always in
// the order of the constants below (docs/tree.md), so two snapshots of the same
// node print the same line.
type State uint32

// The states, in print order.
const (
	Focused State = 1 << iota
	Disabled
	Checked
	Mixed
	Selected
	Expanded
	Collapsed
	Pressed
	Required
	Readonly
	Invalid
	Busy
	Modal
	Protected
	Multiline
	Clickable
	stateEnd
)

var stateNames = [...]string{
	"focused", "disabled", "checked", "mixed", "selected", "expanded", "collapsed",
	"pressed", "required", "readonly", "invalid", "busy", "modal", "protected",
	"multiline", "clickable",
}

// Has reports whether every state in t is set in s.
func (s State) Has(t State) bool { return s&t == t }

// Names returns the names of the set states in print order.
func (s State) Names() []string {
	var out []string
	for i, n := range stateNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// String joins the state names with spaces.
func (s State) String() string { return strings.Join(s.Names(), " ") }

// ParseState returns the state named name (case-insensitive).
func ParseState(name string) (State, error) {
	for i, n := range stateNames {
		if strings.EqualFold(n, name) {
			return 1 << i, nil
		}
	}
	return 0, fmt.Errorf("unknown state %q (one of: %s)", name, strings.Join(stateNames[:], ", "))
}

// MarshalJSON writes the states as a list of names.
func (s State) MarshalJSON() ([]byte, error) { return json.Marshal(s.Names()) }

// UnmarshalJSON reads a list of state names.
func (s *State) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return err
	}
	*s = 0
	for _, n := range names {
		st, err := ParseState(n)
		if err != nil {
			return err
		}
		*s |= st
	}
	return nil
}
