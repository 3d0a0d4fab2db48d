package keys

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []Chord
	}{
		{"Enter", []Chord{{Key: "Enter"}}},
		{"enter", []Chord{{Key: "Enter"}}},
		{"RETURN", []Chord{{Key: "Enter"}}},
		{"ctrl+s", []Chord{{Mods: Ctrl, Key: "s"}}},
		{"Ctrl+Shift+K", []Chord{{Mods: Ctrl | Shift, Key: "K"}}},
		{"shift+Tab", []Chord{{Mods: Shift, Key: "Tab"}}},
		{"ctrl+a Delete", []Chord{{Mods: Ctrl, Key: "a"}, {Key: "Delete"}}},
		{"  esc\tspace\nup  ", []Chord{{Key: "Escape"}, {Key: " "}, {Key: "ArrowUp"}}},
		{"down left right pgup pgdn pageup PageDown ins bksp del spacebar", []Chord{
			{Key: "ArrowDown"}, {Key: "ArrowLeft"}, {Key: "ArrowRight"}, {Key: "PageUp"},
			{Key: "PageDown"}, {Key: "PageUp"}, {Key: "PageDown"}, {Key: "Insert"},
			{Key: "Backspace"}, {Key: "Delete"}, {Key: " "},
		}},
		{"f1 F12 f24 home END arrowdown", []Chord{
			{Key: "F1"}, {Key: "F12"}, {Key: "F24"}, {Key: "Home"}, {Key: "End"}, {Key: "ArrowDown"},
		}},
		{"ctrl+plus alt+Plus", []Chord{{Mods: Ctrl, Key: "+"}, {Mods: Alt, Key: "+"}}},
		{"cmd+c win+r option+x control+super+z", []Chord{
			{Mods: Meta, Key: "c"}, {Mods: Meta, Key: "r"}, {Mods: Alt, Key: "x"}, {Mods: Ctrl | Meta, Key: "z"},
		}},
		// A lone modifier is pressed as a key.
		{"shift ctrl alt+meta cmd Control", []Chord{
			{Key: "Shift"}, {Key: "Control"}, {Mods: Alt, Key: "Meta"}, {Key: "Meta"}, {Key: "Control"},
		}},
		// Single characters are kept as written, including non-ASCII.
		{"A é € ? ctrl+/", []Chord{{Key: "A"}, {Key: "é"}, {Key: "€"}, {Key: "?"}, {Mods: Ctrl, Key: "/"}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "no keys given"},
		{"   ", "no keys given"},
		{"ctrl+", `bad key chord "ctrl+": empty key (write the + key as plus)`},
		{"+", `bad key chord "+": empty key (write the + key as plus)`},
		{"ctrl++a", `bad key chord "ctrl++a": empty key`},
		{"hyper+a", `bad key chord "hyper+a": "hyper" is not a modifier (ctrl, alt, shift, meta)`},
		{"a+b", `"a" is not a modifier`},
		{"ctrl+nosuchkey", `unknown key "nosuchkey" in "ctrl+nosuchkey" (keys: Enter, Tab, Escape, Backspace, Delete, ArrowUp…, Home, End, PageUp, F1…, a single character)`},
		{"Enter F25", `unknown key "F25" in "F25"`},
		{"ab", `unknown key "ab"`},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", tt.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) error %q, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestNamed(t *testing.T) {
	for _, k := range []string{"Enter", "ArrowUp", "F1", "F24", "Control", "Meta", "PageDown", "ContextMenu"} {
		if !Named(k) {
			t.Errorf("Named(%q) = false", k)
		}
	}
	for _, k := range []string{"enter", "a", " ", "F25", "Ctrl", "Esc", ""} {
		if Named(k) {
			t.Errorf("Named(%q) = true", k)
		}
	}
	// Every key Parse returns is a named key or a single character.
	cs, err := Parse("esc return space up down left right del pgup pgdn ins bksp shift ctrl alt meta super f7 capslock")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if !Named(c.Key) && len([]rune(c.Key)) != 1 {
			t.Errorf("Parse gave %q, neither a named key nor a character", c.Key)
		}
	}
}

func TestNames(t *testing.T) {
	names := Names()
	if len(names) != 48 { // 24 named keys and F1…F24
		t.Errorf("%d names: %v", len(names), names)
	}
	for _, k := range names {
		if !Named(k) {
			t.Errorf("Names has %q but Named(%q) = false", k, k)
		}
		if cs, err := Parse(k); err != nil || cs[0].Key != k {
			t.Errorf("Parse(%q) = %v, %v", k, cs, err)
		}
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{"ctrl+s", "ctrl+alt+shift+meta+Delete", "space", "alt+plus", "Enter", "shift+Tab", "é"} {
		cs, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := cs[0].String(); got != s {
			t.Errorf("Parse(%q)[0].String() = %q", s, got)
		}
	}
	if got := (Ctrl | Shift).String(); got != "ctrl+shift" {
		t.Errorf("(Ctrl|Shift).String() = %q", got)
	}
	if got := Mod(0).String(); got != "" {
		t.Errorf("Mod(0).String() = %q", got)
	}
}
