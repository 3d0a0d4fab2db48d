package tree_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

// specOrder is the print order of states fixed by docs/tree.md.
var specOrder = []string{"focused", "disabled", "checked", "mixed", "selected", "expanded",
	"collapsed", "pressed", "required", "readonly", "invalid", "busy", "modal", "protected",
	"multiline", "clickable"}

// byName maps each state name to its constant, independently of ParseState.
var byName = map[string]tree.State{
	"focused": tree.Focused, "disabled": tree.Disabled, "checked": tree.Checked, "mixed": tree.Mixed,
	"selected": tree.Selected, "expanded": tree.Expanded, "collapsed": tree.Collapsed,
	"pressed": tree.Pressed, "required": tree.Required, "readonly": tree.Readonly,
	"invalid": tree.Invalid, "busy": tree.Busy, "modal": tree.Modal, "protected": tree.Protected,
	"multiline": tree.Multiline, "clickable": tree.Clickable,
}

func allStates() tree.State {
	var all tree.State
	for _, s := range byName {
		all |= s
	}
	return all
}

func TestStateNamesSpecOrder(t *testing.T) {
	if len(byName) != len(specOrder) {
		t.Fatalf("test tables disagree: %d constants, %d names", len(byName), len(specOrder))
	}
	if got := allStates().Names(); !reflect.DeepEqual(got, specOrder) {
		t.Errorf("Names() of every state:\n got %v\nwant %v", got, specOrder)
	}
	if got, want := allStates().String(), strings.Join(specOrder, " "); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	seen := map[tree.State]string{}
	for _, name := range specOrder {
		s := byName[name]
		if s == 0 || s&(s-1) != 0 {
			t.Errorf("%s = %#x, want a single bit", name, uint32(s))
		}
		if other, dup := seen[s]; dup {
			t.Errorf("%s and %s share the bit %#x", name, other, uint32(s))
		}
		seen[s] = name
		if got := s.Names(); !reflect.DeepEqual(got, []string{name}) {
			t.Errorf("%s.Names() = %v, want [%s]", name, got, name)
		}
	}
}

func TestStateNames(t *testing.T) {
	tests := []struct {
		s    tree.State
		want []string
	}{
		{0, nil},
		{tree.Clickable | tree.Focused, []string{"focused", "clickable"}},
		{tree.Checked | tree.Disabled | tree.Focused, []string{"focused", "disabled", "checked"}},
		{tree.Protected | tree.Required | tree.Invalid, []string{"required", "invalid", "protected"}},
		{tree.Collapsed | tree.Expanded | tree.Selected, []string{"selected", "expanded", "collapsed"}},
		{tree.Multiline | tree.Readonly, []string{"readonly", "multiline"}},
		{tree.Modal | tree.Busy | tree.Pressed | tree.Mixed, []string{"mixed", "pressed", "busy", "modal"}},
	}
	for _, tt := range tests {
		if got := tt.s.Names(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%#x.Names() = %v, want %v", uint32(tt.s), got, tt.want)
		}
		if got, want := tt.s.String(), strings.Join(tt.want, " "); got != want {
			t.Errorf("%#x.String() = %q, want %q", uint32(tt.s), got, want)
		}
	}
}

func TestStateHas(t *testing.T) {
	s := tree.Focused | tree.Checked
	tests := []struct {
		t    tree.State
		want bool
	}{
		{tree.Focused, true},
		{tree.Checked, true},
		{tree.Focused | tree.Checked, true},
		{tree.Disabled, false},
		{tree.Focused | tree.Disabled, false},
		{0, true},
	}
	for _, tt := range tests {
		if got := s.Has(tt.t); got != tt.want {
			t.Errorf("(%v).Has(%v) = %v, want %v", s, tt.t, got, tt.want)
		}
	}
}

func TestParseState(t *testing.T) {
	for name, want := range byName {
		for _, in := range []string{name, strings.ToUpper(name), strings.ToUpper(name[:1]) + name[1:]} {
			got, err := tree.ParseState(in)
			if err != nil || got != want {
				t.Errorf("ParseState(%q) = %v, %v; want %v", in, got, err, want)
			}
		}
	}
	for _, bad := range []string{"", "hidden", "focus", "focused ", "check", "enabled", "h1"} {
		got, err := tree.ParseState(bad)
		if err == nil {
			t.Errorf("ParseState(%q) = %v, want an error", bad, got)
			continue
		}
		if got != 0 {
			t.Errorf("ParseState(%q) returned state %v with its error", bad, got)
		}
		if bad != "" && !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseState(%q) error %q does not name the input", bad, err)
		}
	}
}

func TestStateJSON(t *testing.T) {
	tests := []struct {
		s    tree.State
		json string
	}{
		{tree.Checked | tree.Focused, `["focused","checked"]`},
		{tree.Clickable, `["clickable"]`},
		{allStates(), `["` + strings.Join(specOrder, `","`) + `"]`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.s)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.json {
			t.Errorf("Marshal(%v) = %s, want %s", tt.s, b, tt.json)
		}
		var back tree.State
		if err := json.Unmarshal(b, &back); err != nil || back != tt.s {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, tt.s)
		}
	}
	var s tree.State = tree.Busy
	if err := json.Unmarshal([]byte(`["Disabled","MODAL"]`), &s); err != nil || s != tree.Disabled|tree.Modal {
		t.Errorf("Unmarshal replaces the set case-insensitively: got %v, %v", s, err)
	}
	for _, bad := range []string{`["focused","hidden"]`, `"focused"`, `3`, `{}`} {
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("Unmarshal(%s) succeeded with %v, want an error", bad, s)
		}
	}
}

func TestNodeJSONRoundTrip(t *testing.T) {
	n := &tree.Node{Role: "form", Name: "Login", Ref: "e1", Children: []*tree.Node{
		{Role: "textbox", Name: "Email", Ref: "e2", Value: "a@b.c", States: tree.Focused | tree.Required,
			Bounds: &tree.Rect{X: 1, Y: 2, W: 300, H: 24}},
		{Role: "heading", Name: "Hi", Level: 2},
	}}
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"states":["focused","required"]`) {
		t.Errorf("states not written as names: %s", b)
	}
	if strings.Contains(string(b), `"states":[]`) || strings.Count(string(b), `"states"`) != 1 {
		t.Errorf("empty states must be left out: %s", b)
	}
	var back tree.Node
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, n) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, *n)
	}
	// Key and Hint are source-internal and stay out of JSON.
	k := &tree.Node{Role: "generic", Key: "dom:42", Hint: "close"}
	if b, _ := json.Marshal(k); strings.Contains(string(b), "dom:42") || strings.Contains(string(b), "close") {
		t.Errorf("Key or Hint leaked into JSON: %s", b)
	}
}
