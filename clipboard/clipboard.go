//go:build linux

// Package clipboard reads and writes the X11 CLIPBOARD selection: the
// clipboard that Ctrl+C and Ctrl+V use in GTK, Qt and browser windows. An
// agent copies text in a web page and pastes it in a desktop app, or the
// other way round, through one Clipboard per desktop.
//
// X has no clipboard storage. Copying makes an application the selection's
// owner; pasting asks that owner to convert the selection to a format and
// hand it over through a window property. So:
//
//   - Written text lives in this process. Close (or exit) empties the
//     clipboard, unless a clipboard manager copied it meanwhile (none runs
//     on canopy's desktop). Keep the Clipboard open as long as the text
//     should stay pasteable.
//   - Every paste is a round trip to the owner, which may be slow, busy or
//     hung; Read waits a bounded time (see Read).
//
// ICCCM details this package gets right and that are easy to miss:
//
//   - Ownership is taken with a real server timestamp, obtained by
//     appending zero bytes to a property of our own window and reading the
//     time off the PropertyNotify, never with CurrentTime; requests older
//     than our ownership are refused.
//   - A SelectionClear can arrive after we took the selection back: it is
//     for the ownership before. Its time does not tell (server time has
//     millisecond resolution, and two takes in one millisecond are common);
//     its sequence number does, as it names the last of our requests the
//     server had processed when it generated the event.
//   - Large text goes by INCR: xgb has no BIG-REQUESTS, so one request holds
//     at most the server's maximum request length (256 KiB on Xvfb and
//     Xorg). Bigger text is sent in chunks, each written when the requestor
//     deletes the previous one, which we learn by selecting PropertyNotify
//     on the requestor's window. Reading does the same in the other role.
//   - STRING is ISO Latin-1, not UTF-8: characters outside Latin-1 become
//     '?'. text/plain without a charset is served as ASCII likewise.
//     UTF8_STRING, TEXT and text/plain;charset=utf-8 carry the text as is.
//   - Requestors that name no property (obsolete clients) get the data in
//     the property named by the target, as ICCCM says.
//   - A Read that gave up (timeout) may still get a late answer or INCR
//     chunks from the owner; the requestor window is replaced after it, so
//     those land nowhere instead of in the next Read.
//
// Each Clipboard has its own X connection and an event loop on its own
// goroutine (fed by a second one that reads the connection): it serves
// other applications' requests and passes the answers that Read and Write
// wait for on to them. The package keeps no state of its own besides a
// filter on xgb's logger.
package clipboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
)

// ErrEmpty is returned (wrapped) by Read when the clipboard holds no text:
// no application owns it, or the owner offers no text format (an image).
var ErrEmpty = errors.New("clipboard: no text on the clipboard")

// ErrClosed is returned by calls on a closed Clipboard, and by calls that
// were waiting when it was closed or its X connection broke.
var ErrClosed = errors.New("clipboard: closed, or the X display went away")

// answerCap bounds each wait for the owner's answer (and for each INCR
// chunk): a hung owner gives an error this soon even when the caller's
// context allows longer.
const answerCap = 2 * time.Second

// openTimeout bounds the connection setup, so that a socket nobody answers
// on gives an error instead of a hang.
const openTimeout = 10 * time.Second

// Clipboard is a connection to one X display's CLIPBOARD selection. Its
// methods are safe for concurrent use; Read and Write run one at a time.
type Clipboard struct {
	conn  *xgb.Conn
	root  xproto.Window
	owner xproto.Window // owns CLIPBOARD and serves the requests
	atoms atoms
	chunk int // most bytes of property data one request can carry

	ops     chan struct{} // one-slot semaphore: one Read or Write at a time
	stamps  chan xgb.Event
	replies chan xgb.Event
	done    chan struct{} // closed when the event loop has ended

	mu      sync.Mutex
	reader  xproto.Window // requestor window of Read; replaced after a failed one
	owned   bool
	text    string
	ownedAt xproto.Timestamp
	ownSeq  uint16 // sequence number of the SetSelectionOwner that took it
	closed  bool

	// transfers are the INCR sends under way; only the event loop uses them.
	transfers map[transferKey]*transfer
}

// Open connects to the X display named display (":99"); "" means $DISPLAY.
// The Clipboard owns nothing until Write.
//
// xgb reads ~/.Xauthority; when the file is missing it logs "Could not get
// authority info" and connects without a cookie, which Xvfb accepts. Open
// drops those log lines from xgb's logger and keeps its other messages.
func Open(display string) (*Clipboard, error) {
	return open(display, "CLIPBOARD")
}

// open opens a Clipboard for the named selection. The tests read PRIMARY
// with it, which GTK sets on select-all without touching CLIPBOARD.
func open(display, selection string) (*Clipboard, error) {
	name := display
	if name == "" {
		name = os.Getenv("DISPLAY")
	}
	if name == "" {
		return nil, errors.New("clipboard: no X display: DISPLAY is not set (start one with `canopy desktop up`)")
	}
	conn, err := connect(name)
	if err != nil {
		return nil, fmt.Errorf("clipboard: no X display at %s (start one with `canopy desktop up`): %w", name, err)
	}
	c, err := setup(conn, selection)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("clipboard: X display %s: %w", name, err)
	}
	events := make(chan any)
	go pump(conn, events)
	go c.run(events)
	return c, nil
}

// setup interns the atoms and creates the two private windows.
func setup(conn *xgb.Conn, selection string) (*Clipboard, error) {
	s := xproto.Setup(conn)
	c := &Clipboard{
		conn:      conn,
		root:      s.DefaultScreen(conn).Root,
		chunk:     (int(s.MaximumRequestLength)*4 - 24) &^ 3,
		ops:       make(chan struct{}, 1),
		stamps:    make(chan xgb.Event, 16),
		replies:   make(chan xgb.Event, 64),
		done:      make(chan struct{}),
		transfers: map[transferKey]*transfer{},
	}
	var err error
	if c.atoms, err = intern(conn, selection); err != nil {
		return nil, err
	}
	if c.owner, err = c.window(); err != nil {
		return nil, err
	}
	if c.reader, err = c.window(); err != nil {
		return nil, err
	}
	return c, nil
}

// window creates an unmapped InputOnly window that reports its property
// changes: the owner window and the requestor window.
func (c *Clipboard) window() (xproto.Window, error) {
	id, err := xproto.NewWindowId(c.conn)
	if err != nil {
		return 0, fmt.Errorf("allocate a window id: %w", err)
	}
	err = xproto.CreateWindowChecked(c.conn, 0, id, c.root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOnly, 0, xproto.CwEventMask,
		[]uint32{xproto.EventMaskPropertyChange}).Check()
	if err != nil {
		return 0, fmt.Errorf("create a window: %w", err)
	}
	return id, nil
}

// Close gives the clipboard up and closes the connection: if this
// Clipboard owns CLIPBOARD, the clipboard becomes empty (the server drops a
// closed client's selections), and INCR transfers under way stop, so their
// requestors time out. Calls waiting on the Clipboard return ErrClosed.
// Closing twice is harmless; the error is always nil (it is there for
// io.Closer).
func (c *Clipboard) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	owned, at := c.owned, c.ownedAt
	c.closed, c.owned, c.text = true, false, ""
	c.mu.Unlock()
	if owned {
		c.giveUp(at)
	}
	c.conn.Close()
	select { // the loop ends when xgb has hung up
	case <-c.done:
	case <-time.After(answerCap):
	}
	return nil
}

// giveUp gives up the selection taken at time at, and waits (a round
// trip, at most answerCap) until the server has done it: a Read by another
// client right after Close then finds the clipboard empty, rather than
// asking this connection, which hangs up. The server would release it at
// the hang-up too, but when it gets to it (late on a loaded machine). A
// selection taken since by another client is left alone (its change time
// is later than at).
func (c *Clipboard) giveUp(at xproto.Timestamp) {
	xproto.SetSelectionOwner(c.conn, xproto.WindowNone, c.atoms.sel, at)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = xproto.GetSelectionOwner(c.conn, c.atoms.sel).Reply()
	}()
	t := time.NewTimer(answerCap)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// acquire takes the one-slot semaphore that serialises Read and Write.
func (c *Clipboard) acquire(ctx context.Context) error {
	select {
	case c.ops <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("clipboard: waiting for another clipboard call: %w", ctx.Err())
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		<-c.ops
		return ErrClosed
	}
	drain(c.stamps)
	drain(c.replies)
	return nil
}

// drain empties ch of the events left over from earlier calls (our own
// DeleteProperty's PropertyNotify arrives after Read returns, for one), so
// that the buffer never fills up and drops a call's answer.
func drain(ch chan xgb.Event) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func (c *Clipboard) release() { <-c.ops }

// connect opens the xgb connection within openTimeout.
func connect(name string) (*xgb.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	return xconn.Dial(ctx, name)
}

// await waits for the first event on ch that match accepts, at most
// answerCap and until ctx ends. who names the party waited for, for the
// error: "the X server", "the application holding the clipboard".
func (c *Clipboard) await(ctx context.Context, ch <-chan xgb.Event, who string, match func(xgb.Event) bool) (xgb.Event, error) {
	timer := time.NewTimer(answerCap)
	defer timer.Stop()
	for {
		select {
		case ev := <-ch:
			if match(ev) {
				return ev, nil
			}
		case <-timer.C:
			return nil, fmt.Errorf("clipboard: %s did not answer within %v: %w", who, answerCap, context.DeadlineExceeded)
		case <-ctx.Done():
			return nil, fmt.Errorf("clipboard: gave up waiting for %s: %w", who, ctx.Err())
		case <-c.done:
			return nil, ErrClosed
		}
	}
}

// xerr words an error from a round trip: a closed connection is ErrClosed.
func xerr(what string, err error) error {
	if errors.Is(err, io.EOF) {
		return ErrClosed
	}
	return fmt.Errorf("clipboard: %s: %w", what, err)
}
