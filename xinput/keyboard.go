//go:build linux

package xinput

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
	"github.com/canopy-dev/canopy/keys"
)

// Keysyms of the named keys, from X11/keysymdef.h.
const (
	symReturn    = 0xff0d
	symTab       = 0xff09
	symBackSpace = 0xff08
	symShiftL    = 0xffe1
	symControlL  = 0xffe3
	symAltL      = 0xffe9
	symSuperL    = 0xffeb
	symF1        = 0xffbe // F2… follow: F24 is 0xffd5
)

// namedKeysyms maps keys.Parse's named keys to X keysyms. The DOM's Meta
// (the Windows key) is Super on X; X's own Meta_L is a different, rarely
// mapped key.
var namedKeysyms = func() map[string]xproto.Keysym {
	m := map[string]xproto.Keysym{
		"Enter": symReturn, "Tab": symTab, "Escape": 0xff1b, "Backspace": symBackSpace,
		"Delete": 0xffff, "Insert": 0xff63, "Home": 0xff50, "End": 0xff57,
		"PageUp": 0xff55, "PageDown": 0xff56, // Prior, Next
		"ArrowLeft": 0xff51, "ArrowUp": 0xff52, "ArrowRight": 0xff53, "ArrowDown": 0xff54,
		"CapsLock": 0xffe5, "NumLock": 0xff7f, "ScrollLock": 0xff14, "Pause": 0xff13,
		"PrintScreen": 0xff61, "ContextMenu": 0xff67, // Print, Menu
		"Shift": symShiftL, "Control": symControlL, "Alt": symAltL, "Meta": symSuperL,
	}
	for i := range 24 {
		m[fmt.Sprintf("F%d", i+1)] = symF1 + xproto.Keysym(i)
	}
	return m
}()

// modKeysyms are the keys held for each modifier, in the order they go down.
var modKeysyms = []struct {
	mod keys.Mod
	sym xproto.Keysym
}{{keys.Ctrl, symControlL}, {keys.Alt, symAltL}, {keys.Shift, symShiftL}, {keys.Meta, symSuperL}}

// runeKeysym returns the keysym that types r. Latin-1 characters are their
// own keysym; any other character c is the Unicode keysym 0x01000000|c,
// which every XKB client (GTK, Qt, Chromium) turns back into c. Newline and
// tab are the Return and Tab keys.
func runeKeysym(r rune) (xproto.Keysym, error) {
	switch {
	case r == '\n' || r == '\r':
		return symReturn, nil
	case r == '\t':
		return symTab, nil
	case r == '\b':
		return symBackSpace, nil
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xff:
		return xproto.Keysym(r), nil
	case r >= 0x100 && r <= utf8.MaxRune:
		return xproto.Keysym(0x01000000 | r), nil
	}
	return 0, fmt.Errorf("cannot type %U: it is a control character", r)
}

// keyKeysym returns the keysym of a canonical key name from keys.Parse.
func keyKeysym(name string) (xproto.Keysym, error) {
	if sym, ok := namedKeysyms[name]; ok {
		return sym, nil
	}
	if r, n := utf8.DecodeRuneInString(name); n == len(name) && n > 0 {
		return runeKeysym(r)
	}
	return 0, fmt.Errorf("key %q has no X keysym", name)
}

// keymap is the server's core keyboard map: per keysyms for each keycode
// from min. Column 0 is the unshifted keysym, column 1 the shifted one;
// further columns (other groups, AltGr levels) are not used here.
type keymap struct {
	min  xproto.Keycode
	per  int
	syms []xproto.Keysym
}

func (d *Display) keymap(ctx context.Context) (*keymap, error) {
	n := byte(int(d.maxKey) - int(d.minKey) + 1)
	r, err := xconn.Await(ctx, func() (*xproto.GetKeyboardMappingReply, error) {
		return xproto.GetKeyboardMapping(d.conn, d.minKey, n).Reply()
	})
	if err != nil {
		return nil, fmt.Errorf("read the keyboard map: %w", err)
	}
	return &keymap{min: d.minKey, per: int(r.KeysymsPerKeycode), syms: r.Keysyms}, nil
}

func (m *keymap) row(code xproto.Keycode) []xproto.Keysym {
	i := int(code-m.min) * m.per
	return m.syms[i : i+m.per]
}

func (m *keymap) count() int { return len(m.syms) / m.per }

// find returns the keycode that types sym, and whether Shift must be held.
// An unshifted match wins over a shifted one.
func (m *keymap) find(sym xproto.Keysym) (code xproto.Keycode, shift, ok bool) {
	for col := range min(m.per, 2) {
		for i := range m.count() {
			if m.syms[i*m.per+col] == sym {
				return m.min + xproto.Keycode(i), col == 1, true
			}
		}
	}
	return 0, false, false
}

// modifier returns the keycode of a modifier key. Binding a spare keycode
// would not do: the server's modifier map would not know it.
func (m *keymap) modifier(sym xproto.Keysym) (xproto.Keycode, error) {
	code, _, ok := m.find(sym)
	if !ok {
		return 0, fmt.Errorf("the keyboard map has no modifier key with keysym %#x", uint32(sym))
	}
	return code, nil
}

// key is one resolved key: the keycode to press and whether to hold Shift.
type key struct {
	code  xproto.Keycode
	shift bool
}

// Press presses each chord in turn: its modifiers go down (ctrl, alt,
// shift, meta), then the key goes down and up, then the modifiers go up in
// reverse order. A single-character key that sits on the shifted column of
// the map ("A", "?") also holds Shift. Key names are checked before
// anything is sent, so a bad one sends nothing.
func (d *Display) Press(ctx context.Context, chords []keys.Chord) error {
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if len(chords) == 0 {
		return fmt.Errorf("no keys given")
	}
	syms := make([]xproto.Keysym, len(chords))
	for i, c := range chords {
		sym, err := keyKeysym(c.Key)
		if err != nil {
			return err
		}
		syms[i] = sym
	}
	m, err := d.keymap(ctx)
	if err != nil {
		return err
	}
	return d.send(ctx, func(s *sender) error {
		for i, c := range chords {
			if err := ctx.Err(); err != nil {
				return err
			}
			k, err := d.resolve(ctx, m, syms[i])
			if err != nil {
				return err
			}
			var held []xproto.Keycode
			for _, mk := range modKeysyms {
				want := c.Mods&mk.mod != 0 || mk.mod == keys.Shift && k.shift
				if !want || mk.sym == syms[i] {
					continue // not wanted, or it is the key itself ("shift")
				}
				code, err := m.modifier(mk.sym)
				if err != nil {
					return err
				}
				s.key(code, true)
				held = append(held, code)
			}
			s.key(k.code, true)
			s.key(k.code, false)
			for _, code := range slices.Backward(held) {
				s.key(code, false)
			}
		}
		return nil
	})
}

// Type types text into the window that has the input focus, one key press
// per character: '\n' is Return, '\t' is Tab. Other control characters
// are an error, found before anything is sent.
//
// Any Unicode text can be typed. A character the keyboard map lacks ('é',
// '€' on a US map) is typed by binding its keysym to a spare keycode first.
// That binding is kept, not undone after the key: every client learns of
// the change from a MappingNotify but re-reads the map only when it gets
// round to it, so a binding undone at once is often gone by then and the
// key decodes as nothing (xev under Xvfb shows this with `xdotool type é`).
// Kept bindings are listed on the root window and recycled, oldest first,
// when no spare keycode is left; Xvfb's US map has about 19.
//
// Applications see real key events: an auto-completing input or a
// shortcut on a key reacts as it would to a person typing.
func (d *Display) Type(ctx context.Context, text string) error {
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if !utf8.ValidString(text) {
		return fmt.Errorf("cannot type text: it is not valid UTF-8")
	}
	var syms []xproto.Keysym
	for i, r := range text {
		if r == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			continue // \r\n is one Return
		}
		sym, err := runeKeysym(r)
		if err != nil {
			return err
		}
		syms = append(syms, sym)
	}
	if len(syms) == 0 {
		return nil
	}
	m, err := d.keymap(ctx)
	if err != nil {
		return err
	}
	return d.send(ctx, func(s *sender) error {
		for _, sym := range syms {
			if err := ctx.Err(); err != nil {
				return err
			}
			k, err := d.resolve(ctx, m, sym)
			if err != nil {
				return err
			}
			var shift xproto.Keycode
			if k.shift {
				if shift, err = m.modifier(symShiftL); err != nil {
					return err
				}
				s.key(shift, true)
			}
			s.key(k.code, true)
			s.key(k.code, false)
			if k.shift {
				s.key(shift, false)
			}
		}
		return nil
	})
}
