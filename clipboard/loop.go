//go:build linux

package clipboard

import (
	"fmt"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// atoms are the interned names the selection protocol uses.
type atoms struct {
	// sel is the selection served and read: CLIPBOARD (PRIMARY in a test).
	sel, targets, multiple, timestamp, incr, atomPair xproto.Atom
	utf8, text, plainUTF8, plain                      xproto.Atom
	// prop is the property Read asks owners to put the text in; stamp is
	// the property appended to for a server timestamp.
	prop, stamp xproto.Atom
}

// intern interns every atom in one round trip; selection names sel.
func intern(conn *xgb.Conn, selection string) (atoms, error) {
	var a atoms
	names := []struct {
		name string
		dst  *xproto.Atom
	}{
		{selection, &a.sel}, {"TARGETS", &a.targets}, {"MULTIPLE", &a.multiple},
		{"TIMESTAMP", &a.timestamp}, {"INCR", &a.incr}, {"ATOM_PAIR", &a.atomPair},
		{"UTF8_STRING", &a.utf8}, {"TEXT", &a.text},
		{"text/plain;charset=utf-8", &a.plainUTF8}, {"text/plain", &a.plain},
		{"CANOPY_CLIPBOARD", &a.prop}, {"CANOPY_CLIPBOARD_TIME", &a.stamp},
	}
	cookies := make([]xproto.InternAtomCookie, len(names))
	for i, n := range names {
		cookies[i] = xproto.InternAtom(conn, false, uint16(len(n.name)), n.name)
	}
	for i, n := range names {
		r, err := cookies[i].Reply()
		if err != nil {
			return a, fmt.Errorf("intern atom %s: %w", n.name, err)
		}
		if r == nil {
			return a, fmt.Errorf("intern atom %s: the X server refused", n.name)
		}
		*n.dst = r.Atom
	}
	return a, nil
}

// pump moves the connection's events and asynchronous errors to out, so
// that the loop can also wait on timers. It ends, closing out, when the
// connection closes.
func pump(conn *xgb.Conn, out chan<- any) {
	defer close(out)
	for {
		ev, err := conn.WaitForEvent()
		switch {
		case ev == nil && err == nil:
			return
		case err != nil:
			out <- err
		default:
			out <- ev
		}
	}
}

// run is the event loop: it serves requests for the text this Clipboard
// owns, drives the INCR sends, and passes the events Read and Write wait
// for on to them.
func (c *Clipboard) run(events <-chan any) {
	defer close(c.done)
	expiry := time.NewTimer(time.Hour)
	defer expiry.Stop()
	for {
		expiry.Reset(c.nextExpiry())
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			c.dispatch(ev)
		case now := <-expiry.C:
			c.expire(now)
		}
	}
}

// dispatch handles one event or asynchronous X error.
func (c *Clipboard) dispatch(ev any) {
	switch e := ev.(type) {
	case xproto.SelectionRequestEvent:
		c.serve(e)
	case xproto.SelectionClearEvent:
		c.lose(e)
	case xproto.SelectionNotifyEvent:
		if e.Requestor == c.readerWindow() {
			forward(c.replies, e)
		}
	case xproto.PropertyNotifyEvent:
		switch e.Window {
		case c.owner:
			forward(c.stamps, e)
		case c.readerWindow():
			forward(c.replies, e)
		default:
			c.advance(e)
		}
	case xgb.Error:
		// Requests that fail with nobody waiting for them: a requestor
		// window that vanished during an INCR send is the one that matters.
		c.drop(xproto.Window(e.BadId()))
	}
}

// forward hands ev to the Read or Write waiting for it. Nobody may be
// waiting (a late answer): the event is dropped rather than blocking the
// loop once the buffer is full.
func forward(ch chan xgb.Event, ev xgb.Event) {
	select {
	case ch <- ev:
	default:
	}
}

// readerWindow is the current requestor window of Read.
func (c *Clipboard) readerWindow() xproto.Window {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reader
}

// lose handles SelectionClear: another client took CLIPBOARD, so this one
// stops serving. A clear generated before our latest SetSelectionOwner was
// processed (its sequence number is older) is for an ownership we have
// since taken back, and is ignored.
func (c *Clipboard) lose(e xproto.SelectionClearEvent) {
	if e.Selection != c.atoms.sel || e.Owner != c.owner {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.owned && int16(e.Sequence-c.ownSeq) >= 0 {
		c.owned, c.text = false, ""
	}
}

// before says whether server time a is earlier than b; server time is in
// milliseconds and wraps around every 49 days.
func before(a, b xproto.Timestamp) bool { return int32(a-b) < 0 }
