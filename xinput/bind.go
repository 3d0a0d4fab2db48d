//go:build linux

package xinput

import (
	"context"
	"fmt"
	"slices"

	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
)

// Typing a character the keyboard map lacks ('é', '€', '日' on a US map)
// takes a spare keycode, one with no keysyms, and binds the character's
// keysym to it with ChangeKeyboardMapping before pressing it.
//
// The binding is not undone after the key. Every client gets a
// MappingNotify for the change, but reads the new map lazily, when it gets
// round to handling that notify (Xlib and xkbcommon both do). Undo the
// binding right after the key event and the client decodes the key with
// the old map: NoSymbol, nothing typed. xdotool does undo it, and xev under
// Xvfb shows exactly that for `xdotool type é€`. So bindings stay, and are
// recycled instead:
//
//   - A character already bound is found on the map like any other, so
//     typing it again changes nothing.
//   - The bound keycodes are listed, oldest first, in the root window
//     property _CANOPY_XINPUT_BOUND, so that every Display, in any process,
//     knows which keycodes are canopy's to reuse. When no free keycode is
//     left (Xvfb's US map has about 19), the oldest binding is rebound.
//
// Two processes binding at the same instant could pick the same free
// keycode; the agent drives one desktop from one place, so this is left
// alone.
const boundProp = "_CANOPY_XINPUT_BOUND"

// resolve finds a keycode for sym, binding a spare keycode to it when the
// map has none. m is updated to match.
func (d *Display) resolve(ctx context.Context, m *keymap, sym xproto.Keysym) (key, error) {
	if code, shift, ok := m.find(sym); ok {
		return key{code, shift}, nil
	}
	code, err := d.spare(ctx, m)
	if err != nil {
		return key{}, fmt.Errorf("cannot type keysym %#x: %w", uint32(sym), err)
	}
	// The keysym goes in both the unshifted and the shifted column, so a
	// held Shift does not change it.
	xproto.ChangeKeyboardMapping(d.conn, 1, code, 2, []xproto.Keysym{sym, sym})
	row := m.row(code)
	clear(row)
	row[0], row[1] = sym, sym
	// The round trip orders the MappingNotify every client gets before the
	// key event, and drains ours.
	if err := d.sync(ctx); err != nil {
		return key{}, err
	}
	return key{code: code}, nil
}

// spare picks the keycode to bind: the highest one with no keysyms, or,
// when none is left, the one bound longest ago. It records the choice as
// the newest in the bound list.
func (d *Display) spare(ctx context.Context, m *keymap) (xproto.Keycode, error) {
	bound, err := d.boundList(ctx)
	if err != nil {
		return 0, err
	}
	var code xproto.Keycode
	found := false
	for i := m.count() - 1; i >= 0 && !found; i-- {
		code = m.min + xproto.Keycode(i)
		found = !slices.ContainsFunc(m.row(code), func(s xproto.Keysym) bool { return s != 0 })
	}
	if !found {
		if len(bound) == 0 {
			return 0, fmt.Errorf("the keyboard map has no spare keycode")
		}
		code = bound[0]
	}
	bound = append(slices.DeleteFunc(bound, func(c xproto.Keycode) bool { return c == code }), code)
	buf := make([]byte, len(bound))
	for i, c := range bound {
		buf[i] = byte(c)
	}
	xproto.ChangeProperty(d.conn, xproto.PropModeReplace, d.root, d.boundAtom,
		xproto.AtomCardinal, 8, uint32(len(buf)), buf)
	return code, nil
}

// boundList reads the bound keycodes from the root property, oldest first.
func (d *Display) boundList(ctx context.Context) ([]xproto.Keycode, error) {
	if d.boundAtom == 0 {
		r, err := xconn.Await(ctx, func() (*xproto.InternAtomReply, error) {
			return xproto.InternAtom(d.conn, false, uint16(len(boundProp)), boundProp).Reply()
		})
		if err != nil {
			return nil, fmt.Errorf("intern %s: %w", boundProp, err)
		}
		d.boundAtom = r.Atom
	}
	r, err := xconn.Await(ctx, func() (*xproto.GetPropertyReply, error) {
		return xproto.GetProperty(d.conn, false, d.root, d.boundAtom, xproto.AtomCardinal, 0, 64).Reply()
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", boundProp, err)
	}
	var out []xproto.Keycode
	if r.Format == 8 {
		for _, b := range r.Value {
			if c := xproto.Keycode(b); c >= d.minKey && c <= d.maxKey {
				out = append(out, c)
			}
		}
	}
	return out, nil
}
