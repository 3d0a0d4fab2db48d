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

// Write puts text on the clipboard: it takes ownership of CLIPBOARD and
// serves text to every application that pastes, until another application
// takes the selection (copies something) or Close. It returns once the
// server confirms the ownership, so a paste right after gets this text.
// When this Clipboard owns the selection already, Write only swaps the
// text.
//
// The text is served, not stored: it is pasteable only while this
// Clipboard stays open. Invalid UTF-8 is replaced by U+FFFD. Writing again
// replaces the text (and takes the selection back if it was lost); a paste
// already under way finishes with the old text.
func (c *Clipboard) Write(ctx context.Context, text string) error {
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	text = strings.ToValidUTF8(text, "\uFFFD")
	owner, err := c.selectionOwner()
	if err != nil {
		return err
	}
	if c.swap(owner, text) {
		return nil
	}
	at, err := c.timestamp(ctx, c.owner, c.stamps)
	if err != nil {
		return err
	}
	// The loop must not see a SelectionClear before ownSeq is set, or it
	// would take a clear of the new ownership for one of the old.
	c.mu.Lock()
	c.text, c.ownedAt, c.owned = text, at, true
	c.ownSeq = xproto.SetSelectionOwner(c.conn, c.owner, c.atoms.sel, at).Sequence
	c.mu.Unlock()
	if owner, err = c.selectionOwner(); err != nil {
		c.disown()
		return err
	}
	if owner != c.owner {
		c.disown()
		return fmt.Errorf("clipboard: another application (X window 0x%x) took the clipboard at the same moment, so the text is not on it; write again", owner)
	}
	return nil
}

// swap replaces the text when this Clipboard still owns the selection
// (owner is the server's word): the ownership and its time stay, so a
// paste asked for a moment before, at a time after that ownership, is not
// refused as older than a new one.
func (c *Clipboard) swap(owner xproto.Window, text string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if owner != c.owner || !c.owned {
		return false
	}
	c.text = text
	return true
}

// selectionOwner asks the server which window owns CLIPBOARD.
func (c *Clipboard) selectionOwner() (xproto.Window, error) {
	r, err := xproto.GetSelectionOwner(c.conn, c.atoms.sel).Reply()
	if err == nil && r == nil {
		err = errors.New("the X server refused GetSelectionOwner")
	}
	if err != nil {
		return 0, xerr("ask the X server who owns the clipboard", err)
	}
	return r.Owner, nil
}

// HasOwner reports whether some application owns the clipboard, so that
// a paste will fetch something from it (the text it offers, if any).
func (c *Clipboard) HasOwner() (bool, error) {
	owner, err := c.selectionOwner()
	if err != nil {
		return false, err
	}
	return owner != xproto.WindowNone, nil
}

// Owner is the window that owns the clipboard now (0: none), and whether
// it is this Clipboard's, holding the text Write put there. A caller that
// must know where a paste's text comes from (text the agent chose, or
// another program's) compares owners over time.
func (c *Clipboard) Owner() (window uint32, ours bool, err error) {
	owner, err := c.selectionOwner()
	if err != nil {
		return 0, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return uint32(owner), owner != xproto.WindowNone && owner == c.owner && c.owned, nil
}

// disown forgets the text after a failed Write.
func (c *Clipboard) disown() {
	c.mu.Lock()
	c.owned, c.text = false, ""
	c.mu.Unlock()
}

// timestamp gets the server's current time the way ICCCM recommends
// instead of CurrentTime: it appends zero bytes to a property of win and
// waits for the PropertyNotify, which carries the time. The event is told
// from leftovers of earlier calls by its sequence number, that of our
// ChangeProperty request.
func (c *Clipboard) timestamp(ctx context.Context, win xproto.Window, ch <-chan xgb.Event) (xproto.Timestamp, error) {
	cookie := xproto.ChangeProperty(c.conn, xproto.PropModeAppend, win, c.atoms.stamp, xproto.AtomInteger, 8, 0, nil)
	seq := cookie.Sequence
	ev, err := c.await(ctx, ch, "the X server", func(ev xgb.Event) bool {
		p, ok := ev.(xproto.PropertyNotifyEvent)
		return ok && p.Window == win && p.Atom == c.atoms.stamp && p.Sequence == seq
	})
	if err != nil {
		return 0, err
	}
	return ev.(xproto.PropertyNotifyEvent).Time, nil
}
