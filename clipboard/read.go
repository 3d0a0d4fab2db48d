//go:build linux

package clipboard

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// maxRead bounds the text Read accepts, so that a runaway INCR owner
// cannot fill the memory.
const maxRead = 64 << 20

// errRefused says the owner answered a conversion with property None.
var errRefused = errors.New("the owner refused the conversion")

// Read returns the clipboard's text. It asks the owner for UTF8_STRING,
// then for STRING (Latin-1, converted to UTF-8) if the owner refuses that.
//
// Each wait for the owner (its answer, then each chunk of a large text)
// lasts at most 2 s and at most until ctx ends: an owner that never
// answers gives an error wrapping context.DeadlineExceeded, not a hang. A
// large text that keeps coming is read until ctx ends.
//
// When nobody owns the clipboard, or the owner offers no text (an image),
// Read returns "" and an error wrapping ErrEmpty. When this Clipboard owns
// it, Read returns the written text without a round trip through the
// owner protocol.
func (c *Clipboard) Read(ctx context.Context) (string, error) {
	if err := c.acquire(ctx); err != nil {
		return "", err
	}
	defer c.release()
	owner, err := c.selectionOwner()
	if err != nil {
		return "", err
	}
	if owner == c.owner {
		if text, _, ok := c.current(); ok {
			return text, nil
		}
		// We lost the selection between the server's answer and now (the
		// SelectionClear was on its way): the server has a new owner.
		if owner, err = c.selectionOwner(); err != nil {
			return "", err
		}
	}
	if owner == xproto.WindowNone || owner == c.owner {
		return "", fmt.Errorf("%w (no application holds the clipboard)", ErrEmpty)
	}
	reader := c.readerWindow()
	text, err := c.fetch(ctx, reader, owner)
	if err != nil && !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrClosed) {
		c.renewReader(reader)
	}
	return text, err
}

// fetch asks owner for the text, in UTF8_STRING and else in STRING.
func (c *Clipboard) fetch(ctx context.Context, reader, owner xproto.Window) (string, error) {
	at, err := c.timestamp(ctx, reader, c.replies)
	if err != nil {
		return "", err
	}
	who := fmt.Sprintf("the application holding the clipboard (X window 0x%x)", owner)
	for _, target := range []xproto.Atom{c.atoms.utf8, xproto.AtomString} {
		typ, data, err := c.convertFrom(ctx, reader, target, at, who)
		if errors.Is(err, errRefused) {
			continue
		}
		if err != nil {
			return "", err
		}
		if typ == xproto.AtomString {
			return latin1(data), nil
		}
		return strings.ToValidUTF8(string(data), "\uFFFD"), nil
	}
	return "", fmt.Errorf("%w (%s offers neither UTF8_STRING nor STRING)", ErrEmpty, who)
}

// convertFrom asks the owner to convert CLIPBOARD to target into our
// property and takes the result, following INCR when the owner sends it in
// chunks.
func (c *Clipboard) convertFrom(ctx context.Context, reader xproto.Window, target xproto.Atom, at xproto.Timestamp, who string) (xproto.Atom, []byte, error) {
	sel, prop := c.atoms.sel, c.atoms.prop
	xproto.ConvertSelection(c.conn, reader, sel, target, prop, at)
	ev, err := c.await(ctx, c.replies, who, func(ev xgb.Event) bool {
		n, ok := ev.(xproto.SelectionNotifyEvent)
		return ok && n.Requestor == reader && n.Selection == sel
	})
	if err != nil {
		return 0, nil, err
	}
	got := ev.(xproto.SelectionNotifyEvent).Property
	if got == xproto.AtomNone {
		return 0, nil, errRefused
	}
	typ, data, err := c.take(reader, got)
	if err != nil || typ != c.atoms.incr {
		return typ, data, err
	}
	return c.receiveIncr(ctx, reader, got, who)
}

// receiveIncr reads an INCR transfer (ICCCM 2.7.2): take has deleted the
// INCR property, which asks for the first chunk; each chunk arrives as a
// new value of the property, and deleting it asks for the next, until a
// zero-length one.
func (c *Clipboard) receiveIncr(ctx context.Context, reader xproto.Window, prop xproto.Atom, who string) (xproto.Atom, []byte, error) {
	var (
		out []byte
		typ xproto.Atom
	)
	for {
		_, err := c.await(ctx, c.replies, who, func(ev xgb.Event) bool {
			p, ok := ev.(xproto.PropertyNotifyEvent)
			return ok && p.Window == reader && p.Atom == prop && p.State == xproto.PropertyNewValue
		})
		if err != nil {
			return 0, nil, fmt.Errorf("%w (after %d bytes of a large text)", err, len(out))
		}
		t, data, err := c.take(reader, prop)
		if err != nil {
			return 0, nil, err
		}
		if len(data) == 0 {
			return typ, out, nil
		}
		if len(out)+len(data) > maxRead {
			return 0, nil, fmt.Errorf("clipboard: the text is larger than %d MiB, the most Read takes", maxRead>>20)
		}
		typ, out = t, append(out, data...)
	}
}

// take reads a property of our window whole, then deletes it (for INCR
// the deletion is what asks the owner for more).
func (c *Clipboard) take(win xproto.Window, prop xproto.Atom) (xproto.Atom, []byte, error) {
	var (
		data   []byte
		typ    xproto.Atom
		offset uint32 // in 32-bit units, as GetProperty counts
	)
	for {
		r, err := xproto.GetProperty(c.conn, false, win, prop, xproto.GetPropertyTypeAny, offset, 1<<20).Reply()
		if err == nil && r == nil {
			err = errors.New("the X server refused GetProperty")
		}
		if err != nil {
			return 0, nil, xerr("read the clipboard's text", err)
		}
		if r.Format != 8 && r.Type != c.atoms.incr && len(r.Value) > 0 {
			return 0, nil, fmt.Errorf("clipboard: the owner sent %d-bit data, not text", r.Format)
		}
		typ, data = r.Type, append(data, r.Value...)
		if r.BytesAfter == 0 {
			break
		}
		if len(data) > maxRead {
			return 0, nil, fmt.Errorf("clipboard: the text is larger than %d MiB, the most Read takes", maxRead>>20)
		}
		offset += uint32(len(r.Value) / 4)
	}
	xproto.DeleteProperty(c.conn, win, prop)
	return typ, data, nil
}

// renewReader replaces the requestor window after a Read that gave up, so
// that the owner's late answer or INCR chunks go to a window that no longer
// exists instead of confusing the next Read.
func (c *Clipboard) renewReader(old xproto.Window) {
	w, err := c.window()
	if err != nil {
		return // keep the old one; the events' checks still apply
	}
	c.mu.Lock()
	c.reader = w
	c.mu.Unlock()
	xproto.DestroyWindow(c.conn, old)
}

// latin1 decodes STRING data, which is ISO Latin-1, to UTF-8.
func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}
