//go:build linux

package atspi

// State is one AT-SPI state (AtspiStateType), a bit number in [States].
type State uint

// The states (atspi-constants.h order).
const (
	StateInvalid State = iota
	StateActive
	StateArmed
	StateBusy
	StateChecked
	StateCollapsed
	StateDefunct
	StateEditable
	StateEnabled
	StateExpandable
	StateExpanded
	StateFocusable
	StateFocused
	StateHasTooltip
	StateHorizontal
	StateIconified
	StateModal
	StateMultiLine
	StateMultiselectable
	StateOpaque
	StatePressed
	StateResizable
	StateSelectable
	StateSelected
	StateSensitive
	StateShowing
	StateSingleLine
	StateStale
	StateTransient
	StateVertical
	StateVisible
	StateManagesDescendants
	StateIndeterminate
	StateRequired
	StateTruncated
	StateAnimated
	StateInvalidEntry
	StateSupportsAutocompletion
	StateSelectableText
	StateIsDefault
	StateVisited
	StateCheckable
	StateHasPopup
	StateReadOnly
)

// stateNames are the states' names, for events ("object:state-changed:focused")
// and debugging.
var stateNames = [...]string{
	"invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable",
	"enabled", "expandable", "expanded", "focusable", "focused", "has-tooltip",
	"horizontal", "iconified", "modal", "multi-line", "multiselectable", "opaque",
	"pressed", "resizable", "selectable", "selected", "sensitive", "showing",
	"single-line", "stale", "transient", "vertical", "visible", "manages-descendants",
	"indeterminate", "required", "truncated", "animated", "invalid-entry",
	"supports-autocompletion", "selectable-text", "is-default", "visited", "checkable",
	"has-popup", "read-only",
}

// String returns the state's name as events spell it.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state"
}

// States is the set GetState returns: two 32-bit words on the wire, one
// 64-bit set here.
type States uint64

// Has reports whether s holds st.
func (s States) Has(st State) bool { return s&(1<<st) != 0 }

// statesOf joins GetState's words.
func statesOf(words []uint32) States {
	var s States
	for i, w := range words {
		if i > 1 {
			break
		}
		s |= States(w) << (32 * i)
	}
	return s
}
