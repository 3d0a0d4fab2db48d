//go:build linux

package clipboard

import (
	"encoding/binary"

	"github.com/jezek/xgb/xproto"
)

// serve answers another client's SelectionRequest: it converts the text
// to the target asked for, puts it in the requestor's property and sends
// the SelectionNotify. A request it cannot meet gets a SelectionNotify with
// property None, which tells the requestor no; a request never goes
// unanswered, or the requestor would wait until its own timeout.
func (c *Clipboard) serve(e xproto.SelectionRequestEvent) {
	text, at, ok := c.current()
	if !ok || e.Selection != c.atoms.sel || e.Owner != c.owner ||
		(e.Time != xproto.TimeCurrentTime && before(e.Time, at)) {
		c.notify(e, xproto.AtomNone)
		return
	}
	prop := e.Property
	if prop == xproto.AtomNone { // an obsolete requestor: ICCCM 2.2
		prop = e.Target
	}
	var served bool
	if e.Target == c.atoms.multiple {
		served = e.Property != xproto.AtomNone && c.serveMultiple(e.Requestor, prop, text, at)
	} else {
		served = c.convert(e.Requestor, prop, e.Target, text, at)
	}
	if !served {
		prop = xproto.AtomNone
	}
	c.notify(e, prop)
}

// current returns the text this Clipboard serves and when it took
// ownership; ok is false when it owns nothing.
func (c *Clipboard) current() (text string, at xproto.Timestamp, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.text, c.ownedAt, c.owned
}

// notify sends the SelectionNotify that ends a request. Sent with an empty
// event mask, it goes to the client that created the requestor window.
func (c *Clipboard) notify(e xproto.SelectionRequestEvent, prop xproto.Atom) {
	ev := xproto.SelectionNotifyEvent{
		Time: e.Time, Requestor: e.Requestor, Selection: e.Selection, Target: e.Target, Property: prop,
	}
	xproto.SendEvent(c.conn, false, e.Requestor, xproto.EventMaskNoEvent, string(ev.Bytes()))
}

// targetList is what TARGETS answers, best first.
func (c *Clipboard) targetList() []xproto.Atom {
	a := c.atoms
	return []xproto.Atom{a.targets, a.multiple, a.timestamp, a.utf8, a.plainUTF8, a.text, xproto.AtomString, a.plain}
}

// convert writes text, converted to target, to the requestor's property
// and reports whether target is one it serves.
func (c *Clipboard) convert(req xproto.Window, prop, target xproto.Atom, text string, at xproto.Timestamp) bool {
	a := c.atoms
	switch target {
	case a.targets:
		c.put(req, prop, xproto.AtomAtom, 32, atomBytes(c.targetList()))
	case a.timestamp:
		c.put(req, prop, xproto.AtomInteger, 32, atomBytes([]xproto.Atom{xproto.Atom(at)}))
	case a.utf8, a.plainUTF8:
		c.send(req, prop, target, []byte(text))
	case a.text: // TEXT lets the owner pick the type
		c.send(req, prop, a.utf8, []byte(text))
	case xproto.AtomString:
		c.send(req, prop, xproto.AtomString, narrow(text, 0xFF))
	case a.plain:
		c.send(req, prop, a.plain, narrow(text, 0x7F))
	default:
		return false
	}
	return true
}

// serveMultiple answers MULTIPLE: the requestor's property lists (target,
// property) pairs; each pair is converted, and a pair that cannot be has
// its property replaced by None in the list, which is written back.
func (c *Clipboard) serveMultiple(req xproto.Window, prop xproto.Atom, text string, at xproto.Timestamp) bool {
	r, err := xproto.GetProperty(c.conn, false, req, prop, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
	if err != nil || r == nil || r.Format != 32 || len(r.Value)%8 != 0 {
		return false
	}
	pairs := r.Value
	for i := 0; i < len(pairs); i += 8 {
		target := xproto.Atom(binary.LittleEndian.Uint32(pairs[i:]))
		p := xproto.Atom(binary.LittleEndian.Uint32(pairs[i+4:]))
		if target == c.atoms.multiple || p == xproto.AtomNone || !c.convert(req, p, target, text, at) {
			binary.LittleEndian.PutUint32(pairs[i+4:], uint32(xproto.AtomNone))
		}
	}
	c.put(req, prop, r.Type, 32, pairs)
	return true
}

// put writes a small property value in one request.
func (c *Clipboard) put(win xproto.Window, prop, typ xproto.Atom, format byte, data []byte) {
	n := uint32(len(data) / int(format/8))
	xproto.ChangeProperty(c.conn, xproto.PropModeReplace, win, prop, typ, format, n, data)
}

// send writes text data to the requestor's property: in one request when
// it fits, else by INCR.
func (c *Clipboard) send(req xproto.Window, prop, typ xproto.Atom, data []byte) {
	if len(data) <= c.chunk {
		c.put(req, prop, typ, 8, data)
		return
	}
	c.startIncr(req, prop, typ, data)
}

// atomBytes encodes 32-bit values in the byte order xgb speaks (it
// announces little-endian to the server).
func atomBytes(list []xproto.Atom) []byte {
	b := make([]byte, 4*len(list))
	for i, a := range list {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(a))
	}
	return b
}

// narrow encodes text one byte per character for STRING (Latin-1, max
// 0xFF) or text/plain (ASCII, max 0x7F); other characters become '?'.
func narrow(text string, max rune) []byte {
	b := make([]byte, 0, len(text))
	for _, r := range text {
		if r > max {
			r = '?'
		}
		b = append(b, byte(r))
	}
	return b
}
