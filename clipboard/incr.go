//go:build linux

package clipboard

import (
	"time"

	"github.com/jezek/xgb/xproto"
)

// transferIdle is how long an INCR send waits for the requestor to take
// the next chunk before it is dropped (the requestor hung or gave up
// without deleting the property).
const transferIdle = 10 * time.Second

// transferKey names an INCR send: the requestor's window and property.
type transferKey struct {
	win  xproto.Window
	prop xproto.Atom
}

// transfer is one INCR send under way. It keeps its own copy of the data,
// so a Write meanwhile does not change what the requestor gets.
type transfer struct {
	typ  xproto.Atom
	data []byte // what is left to send
	end  bool   // the closing zero-length chunk is written
	last time.Time
}

// startIncr begins an INCR send (ICCCM 2.7.2): the property gets type INCR
// and a lower bound of the size; the requestor then deletes it, and each
// deletion (a PropertyNotify on the requestor's window, which we select)
// asks for the next chunk, until a zero-length chunk ends the transfer.
func (c *Clipboard) startIncr(req xproto.Window, prop, typ xproto.Atom, data []byte) {
	key := transferKey{req, prop}
	c.watch(req)
	c.transfers[key] = &transfer{typ: typ, data: data, last: time.Now()}
	size := atomBytes([]xproto.Atom{xproto.Atom(len(data))})
	c.put(req, prop, c.atoms.incr, 32, size)
}

// advance handles a PropertyNotify on a requestor's window: a deleted
// transfer property is the requestor asking for the next chunk.
func (c *Clipboard) advance(e xproto.PropertyNotifyEvent) {
	key := transferKey{e.Window, e.Atom}
	t := c.transfers[key]
	if t == nil || e.State != xproto.PropertyDelete {
		return
	}
	if t.end {
		c.finish(key)
		return
	}
	n := min(len(t.data), c.chunk)
	xproto.ChangeProperty(c.conn, xproto.PropModeAppend, key.win, key.prop, t.typ, 8, uint32(n), t.data[:n])
	t.data = t.data[n:]
	t.end = n == 0
	t.last = time.Now()
}

// finish forgets a transfer and stops watching its window when no other
// transfer uses it.
func (c *Clipboard) finish(key transferKey) {
	delete(c.transfers, key)
	for k := range c.transfers {
		if k.win == key.win {
			return
		}
	}
	c.unwatch(key.win)
}

// drop forgets the transfers to win, whose requests failed (the window is
// gone).
func (c *Clipboard) drop(win xproto.Window) {
	for k := range c.transfers {
		if k.win == win {
			delete(c.transfers, k)
		}
	}
}

// expire drops the transfers idle for transferIdle at now.
func (c *Clipboard) expire(now time.Time) {
	for k, t := range c.transfers {
		if now.Sub(t.last) >= transferIdle {
			c.finish(k)
		}
	}
}

// nextExpiry is how long until the oldest transfer expires; an hour (the
// loop's idle wake-up) when there is none.
func (c *Clipboard) nextExpiry() time.Duration {
	d := time.Hour
	for _, t := range c.transfers {
		d = min(d, time.Until(t.last.Add(transferIdle)))
	}
	return max(d, 0)
}

// watch selects PropertyNotify on a requestor's window. The event mask is
// per client, so this does not disturb the requestor's own. Our own
// windows already report property changes.
func (c *Clipboard) watch(win xproto.Window) {
	if win == c.owner || win == c.readerWindow() {
		return
	}
	xproto.ChangeWindowAttributes(c.conn, win, xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange})
}

// unwatch undoes watch once the window's transfers are over.
func (c *Clipboard) unwatch(win xproto.Window) {
	if win == c.owner || win == c.readerWindow() {
		return
	}
	xproto.ChangeWindowAttributes(c.conn, win, xproto.CwEventMask, []uint32{xproto.EventMaskNoEvent})
}
