package browser

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"
)

// Input goes through the CDP Input domain, so the page sees trusted events
// (isTrusted) with real coordinates, as from a user.

// mouseButton maps the action's button name to CDP's.
func mouseButton(name string) (input.MouseButton, error) {
	switch strings.ToLower(name) {
	case "", "left":
		return input.MouseButtonLeft, nil
	case "right":
		return input.MouseButtonRight, nil
	case "middle":
		return input.MouseButtonMiddle, nil
	}
	return "", fmt.Errorf("unknown mouse button %q: use left, right or middle", name)
}

// click moves the mouse to x,y and clicks count times.
func click(ctx context.Context, t cdp.Session, x, y float64, button input.MouseButton, count int) error {
	if err := mouse(ctx, t, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0); err != nil {
		return err
	}
	for i := 1; i <= max(count, 1); i++ {
		if err := mouse(ctx, t, input.DispatchMouseEventTypeMousePressed, x, y, button, i); err != nil {
			return err
		}
		if err := mouse(ctx, t, input.DispatchMouseEventTypeMouseReleased, x, y, button, i); err != nil {
			return err
		}
	}
	return nil
}

func mouse(ctx context.Context, t cdp.Session, typ input.DispatchMouseEventType, x, y float64, button input.MouseButton, count int) error {
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Button: button, ClickCount: int64(count)}
	if typ == input.DispatchMouseEventTypeMousePressed {
		p.Buttons = buttonsMask(button)
	}
	_, err := cdp.Call(ctx, t, input.DispatchMouseEvent, p)
	return err
}

func buttonsMask(b input.MouseButton) int64 {
	switch b {
	case input.MouseButtonLeft:
		return 1
	case input.MouseButtonRight:
		return 2
	case input.MouseButtonMiddle:
		return 4
	}
	return 0
}

// wheelParams is Input.dispatchMouseEvent for the wheel: Chromium requires
// both deltas, and cdproto's params omit a zero one.
type wheelParams struct {
	Type   input.DispatchMouseEventType `json:"type"`
	X      float64                      `json:"x"`
	Y      float64                      `json:"y"`
	DeltaX float64                      `json:"deltaX"`
	DeltaY float64                      `json:"deltaY"`
}

// wheel scrolls by dx,dy CSS pixels with the mouse at x,y.
func wheel(ctx context.Context, t cdp.Session, x, y, dx, dy float64) error {
	return t.Call(ctx, input.DispatchMouseEvent.Method, wheelParams{
		Type: input.DispatchMouseEventTypeMouseWheel, X: x, Y: y, DeltaX: dx, DeltaY: dy,
	}, nil)
}

// Modifier bits of CDP key and mouse events.
const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

var modifierNames = map[string]int64{
	"alt": modAlt, "option": modAlt,
	"ctrl": modCtrl, "control": modCtrl,
	"meta": modMeta, "cmd": modMeta, "command": modMeta, "super": modMeta, "win": modMeta,
	"shift": modShift,
}

// keyAliases are names people write for keys whose DOM key value differs.
var keyAliases = map[string]string{
	"esc": "Escape", "return": "Enter", "space": " ", "spacebar": " ",
	"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
	"del": "Delete", "pgup": "PageUp", "pgdn": "PageDown", "pageup": "PageUp", "pagedown": "PageDown",
	"ins": "Insert", "bksp": "Backspace",
}

// chord is one key with modifiers: ctrl+shift+k.
type chord struct {
	mods int64
	key  rune // a kb rune: a character or one of kb's named keys
	name string
}

// keyRunes maps lowercased DOM key names (Enter, ArrowDown, F5…) to kb's
// runes, built from kb.Keys.
func keyRune(name string) (rune, bool) {
	if a, ok := keyAliases[strings.ToLower(name)]; ok {
		name = a
	}
	if utf8.RuneCountInString(name) == 1 {
		r, _ := utf8.DecodeRuneInString(name)
		return r, true
	}
	for r, k := range kb.Keys {
		// A named key (Enter is printable: it types "\r").
		if strings.EqualFold(k.Key, name) && (!k.Print || utf8.RuneCountInString(k.Key) > 1) {
			return r, true
		}
	}
	return 0, false
}

// parseKeys reads a key sequence: chords separated by spaces, each chord
// modifiers and one key joined by '+' ("ctrl+a Delete", "Shift+Tab",
// "Enter"). The key '+' itself is written "plus".
func parseKeys(s string) ([]chord, error) {
	var out []chord
	for _, word := range strings.Fields(s) {
		parts := strings.Split(word, "+")
		var c chord
		for i, p := range parts {
			if p == "" {
				return nil, fmt.Errorf("bad key chord %q: empty key (write the + key as plus)", word)
			}
			if i < len(parts)-1 {
				m, ok := modifierNames[strings.ToLower(p)]
				if !ok {
					return nil, fmt.Errorf("bad key chord %q: %q is not a modifier (ctrl, alt, shift, meta)", word, p)
				}
				c.mods |= m
				continue
			}
			if strings.EqualFold(p, "plus") {
				p = "+"
			}
			r, ok := keyRune(p)
			if m, isMod := modifierNames[strings.ToLower(p)]; isMod && !ok {
				r, ok = modifierRune(m), true
			}
			if !ok {
				return nil, fmt.Errorf("unknown key %q in %q (keys: Enter, Tab, Escape, Backspace, Delete, ArrowUp…, Home, End, PageUp, F1…, a single character)", p, word)
			}
			c.key, c.name = r, p
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no keys given")
	}
	return out, nil
}

func modifierRune(m int64) rune {
	switch m {
	case modAlt:
		return []rune(kb.Alt)[0]
	case modCtrl:
		return []rune(kb.Control)[0]
	case modMeta:
		return []rune(kb.Meta)[0]
	}
	return []rune(kb.Shift)[0]
}

// press sends each chord as keyDown, char (for printable keys without
// ctrl/alt/meta) and keyUp, with its modifiers.
func press(ctx context.Context, t cdp.Session, chords []chord) error {
	for _, c := range chords {
		for _, ev := range kb.Encode(c.key) {
			ev.Modifiers |= c.mods
			if ev.Type == kb.KeyChar && c.mods&^modShift != 0 {
				continue // a shortcut types nothing
			}
			if ev.Type == kb.KeyChar && c.mods&modShift != 0 && ev.Text != "" {
				ev.Text = strings.ToUpper(ev.Text)
			}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// insertText types text as one trusted input (beforeinput/input events),
// the way an IME commits text.
func insertText(ctx context.Context, t cdp.Session, text string) error {
	_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
	return err
}
