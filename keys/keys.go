// Package keys reads the key sequences that the press action takes
// ("Enter", "ctrl+s", "shift+Tab ctrl+a Delete") into chords that both
// input backends understand: the browser sends them through CDP's Input
// domain, the desktop through XTEST.
//
// The package only knows the syntax and the canonical key names. Turning a
// name into a CDP key event or an X keysym is each backend's job, and every
// name Parse can return must be known to both (see Names).
//
// Key names are DOM key names (the KeyboardEvent.key values of the web):
// "Enter", "Tab", "ArrowDown", "F5", " " for the space bar, or a single
// character such as "a", "A" or "é". Matching is case-insensitive for named
// keys and common aliases are accepted ("esc", "return", "pgdn", "up"…);
// single characters are kept as written, so "A" means shift+a to the page.
package keys

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Mod is a set of modifier keys held down during a chord.
//
// The bit values are those of CDP's Input.dispatchKeyEvent "modifiers"
// field, so the browser can pass int64(m) through unchanged.
type Mod uint8

// The modifiers. Meta is the "Windows"/"Command" key: Meta in the DOM,
// Super on X.
const (
	Alt Mod = 1 << iota
	Ctrl
	Meta
	Shift
)

// String writes the set as the user would: "ctrl+shift". The empty set is "".
func (m Mod) String() string {
	var parts []string
	for _, n := range [...]struct {
		m    Mod
		name string
	}{{Ctrl, "ctrl"}, {Alt, "alt"}, {Shift, "shift"}, {Meta, "meta"}} {
		if m&n.m != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, "+")
}

// Chord is one key pressed while the modifiers in Mods are held: ctrl+s is
// Chord{Mods: Ctrl, Key: "s"}.
type Chord struct {
	// Mods are the modifiers held while Key is pressed.
	Mods Mod
	// Key is a canonical key name: one of the named keys (see Named) or a
	// single character. A lone modifier ("shift") is the key "Shift".
	Key string
}

// String writes the chord back in Parse's syntax, e.g. "ctrl+shift+Tab",
// "alt+plus", "space"; Parse(c.String()) gives c again.
func (c Chord) String() string {
	k := c.Key
	switch k {
	case " ":
		k = "space"
	case "+":
		k = "plus"
	}
	if c.Mods == 0 {
		return k
	}
	return c.Mods.String() + "+" + k
}

// modifierNames are the words accepted before a '+'.
var modifierNames = map[string]Mod{
	"alt": Alt, "option": Alt,
	"ctrl": Ctrl, "control": Ctrl,
	"meta": Meta, "cmd": Meta, "command": Meta, "super": Meta, "win": Meta,
	"shift": Shift,
}

// modifierKeys are the key names of the modifiers themselves, for chords
// such as "shift" or "ctrl+shift" that press a modifier as the key.
var modifierKeys = map[Mod]string{Alt: "Alt", Ctrl: "Control", Meta: "Meta", Shift: "Shift"}

// aliases are names people write for keys whose DOM name differs.
var aliases = map[string]string{
	"esc": "Escape", "return": "Enter", "space": " ", "spacebar": " ",
	"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
	"del": "Delete", "pgup": "PageUp", "pgdn": "PageDown", "pageup": "PageUp", "pagedown": "PageDown",
	"ins": "Insert", "bksp": "Backspace",
}

// named lists the canonical named keys, by lower-case name.
var named = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"Enter", "Tab", "Escape", "Backspace", "Delete", "Insert",
		"Home", "End", "PageUp", "PageDown",
		"ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight",
		"CapsLock", "NumLock", "ScrollLock", "Pause", "PrintScreen", "ContextMenu",
		"Alt", "Control", "Meta", "Shift",
	} {
		m[strings.ToLower(k)] = k
	}
	for i := 1; i <= 24; i++ {
		k := fmt.Sprintf("F%d", i)
		m[strings.ToLower(k)] = k
	}
	return m
}()

// Names returns the canonical named keys, sorted: every key name Parse can
// return that is not a single character. Backends test against it that
// they can send each one.
func Names() []string {
	out := make([]string, 0, len(named))
	for _, k := range named {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Named reports whether name is a canonical named key that Parse can
// return: "Enter", "ArrowUp", "F12", "Control"… (exact case). Single
// characters, including " ", are not named keys.
func Named(name string) bool {
	k, ok := named[strings.ToLower(name)]
	return ok && k == name
}

// canonical returns the canonical name for what the user wrote as a key.
func canonical(word string) (string, bool) {
	lower := strings.ToLower(word)
	if a, ok := aliases[lower]; ok {
		return a, true
	}
	if utf8.RuneCountInString(word) == 1 {
		return word, true
	}
	if k, ok := named[lower]; ok {
		return k, true
	}
	if m, ok := modifierNames[lower]; ok {
		return modifierKeys[m], true
	}
	return "", false
}

// Parse reads a key sequence: chords separated by white space, each chord
// zero or more modifiers and one key joined by '+' ("ctrl+a Delete",
// "Shift+Tab", "Enter"). The '+' key itself is written "plus"; modifiers
// are ctrl, alt, shift and meta (with the synonyms control, option, cmd,
// command, super and win).
//
// The error messages are written for the agent that typed the sequence:
// they say what was wrong and what is accepted.
func Parse(s string) ([]Chord, error) {
	var out []Chord
	for _, word := range strings.Fields(s) {
		parts := strings.Split(word, "+")
		var c Chord
		for i, p := range parts {
			if p == "" {
				return nil, fmt.Errorf("bad key chord %q: empty key (write the + key as plus)", word)
			}
			if i < len(parts)-1 {
				m, ok := modifierNames[strings.ToLower(p)]
				if !ok {
					return nil, fmt.Errorf("bad key chord %q: %q is not a modifier (ctrl, alt, shift, meta)", word, p)
				}
				c.Mods |= m
				continue
			}
			if strings.EqualFold(p, "plus") {
				p = "+"
			}
			k, ok := canonical(p)
			if !ok {
				return nil, fmt.Errorf("unknown key %q in %q (keys: Enter, Tab, Escape, Backspace, Delete, ArrowUp…, Home, End, PageUp, F1…, a single character)", p, word)
			}
			c.Key = k
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no keys given")
	}
	return out, nil
}

// Pastes reports whether one of chords is a paste shortcut (ctrl+v,
// ctrl+shift+v, shift+Insert): the text comes from the clipboard's owner
// after the keys, so an action that presses one waits for it.
func Pastes(chords []Chord) bool {
	for _, c := range chords {
		switch {
		case (c.Mods == Ctrl || c.Mods == Ctrl|Shift) && (c.Key == "v" || c.Key == "V"):
			return true
		case c.Mods == Shift && c.Key == "Insert":
			return true
		}
	}
	return false
}

// Copies reports whether one of chords copies or cuts (Copy): the
// focused application then takes the clipboard.
func Copies(chords []Chord) bool {
	for _, c := range chords {
		if Copy(c) {
			return true
		}
	}
	return false
}

// Copy says whether a chord copies or cuts the selection: ctrl+c, ctrl+x,
// ctrl+Insert and shift+Delete, with meta for ctrl (macOS) and any other
// modifiers held too (a terminal's ctrl+shift+c).
func Copy(c Chord) bool {
	cmd := c.Mods&(Ctrl|Meta) != 0
	switch strings.ToLower(c.Key) {
	case "c", "x", "insert":
		return cmd
	case "delete":
		return c.Mods&Shift != 0
	}
	return false
}
