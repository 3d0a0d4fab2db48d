package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"

	"github.com/canopy-dev/canopy/keys"
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
	return clickHere(ctx, t, x, y, button, count)
}

// clickHere clicks count times at x,y, where the mouse already is. (A move
// is answered only once the page drew its next frame: a move to where the
// mouse is costs a frame for nothing.)
func clickHere(ctx context.Context, t cdp.Session, x, y float64, button input.MouseButton, count int) error {
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

// kbRunes maps canonical key names (keys.Names) to kb's runes, built from
// kb.Keys. A named key is one whose DOM key value is not the character it
// types (Enter is printable: it types "\r").
var kbRunes = sync.OnceValue(func() map[string]rune {
	m := map[string]rune{}
	for r, k := range kb.Keys {
		if !k.Print || utf8.RuneCountInString(k.Key) > 1 {
			m[k.Key] = r
		}
	}
	return m
})

// keyRune maps a canonical key name from keys.Parse to the kb rune that
// kb.Encode turns into CDP key events.
func keyRune(name string) (rune, error) {
	if utf8.RuneCountInString(name) == 1 {
		r, _ := utf8.DecodeRuneInString(name)
		return r, nil
	}
	if r, ok := kbRunes()[name]; ok {
		return r, nil
	}
	return 0, fmt.Errorf("key %q has no CDP key event", name)
}

// press sends each chord as keyDown, char (for printable keys without
// ctrl/alt/meta) and keyUp, with its modifiers.
func press(ctx context.Context, t cdp.Session, chords []keys.Chord) error {
	for _, c := range chords {
		r, err := keyRune(c.Key)
		if err != nil {
			return err
		}
		for _, ev := range kb.Encode(r) {
			ev.Modifiers |= int64(c.Mods) // keys.Mod has CDP's bit values
			if ev.Type == kb.KeyChar && c.Mods&^keys.Shift != 0 {
				continue // a shortcut types nothing
			}
			if ev.Type == kb.KeyChar && c.Mods&keys.Shift != 0 && ev.Text != "" {
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
