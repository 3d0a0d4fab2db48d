//go:build linux

package capture

import (
	"context"
	"errors"
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/internal/xconn"
)

// ErrWindowGone is wrapped by the errors of WindowRect and GrabWindow when
// the window no longer exists: it was closed, maybe between the snapshot
// that named it and the screenshot. Test for it with errors.Is.
var ErrWindowGone = errors.New("the window is gone (it was closed)")

// ErrWindowHidden is wrapped by the errors of WindowRect and GrabWindow when
// the window exists but is not shown: unmapped, minimised, or inside a
// hidden parent. A grab of its rectangle would show what is there instead.
var ErrWindowHidden = errors.New("the window is not shown (hidden or minimised)")

// WindowRect returns the on-screen rectangle of the window with X id xid:
// its inside (the X border excluded) in root coordinates, found by
// translating its origin to the root window, so it is right for a window
// nested in a window manager's frame too. It may reach past the screen's
// edges; Grab clips it.
//
// The three requests it needs go out together, so it costs one round trip.
// A window destroyed meanwhile gives an error wrapping ErrWindowGone, one
// that is not viewable one wrapping ErrWindowHidden; neither hangs.
func (s *Screen) WindowRect(ctx context.Context, xid uint32) (Rect, error) {
	conn, err := s.connection()
	if err != nil {
		return Rect{}, err
	}
	r, err := xconn.Await(ctx, func() (Rect, error) { return s.windowRect(conn, xproto.Window(xid)) })
	if err != nil {
		return Rect{}, fmt.Errorf("window %#x: %w", xid, s.serverError(windowError(err)))
	}
	return r, nil
}

// windowRect asks for the window's attributes, geometry and position on
// the root window, and waits for the three answers.
func (s *Screen) windowRect(conn *xgb.Conn, w xproto.Window) (Rect, error) {
	attrs := xproto.GetWindowAttributes(conn, w)
	geom := xproto.GetGeometry(conn, xproto.Drawable(w))
	pos := xproto.TranslateCoordinates(conn, w, s.root, 0, 0)
	// Read every reply, so none is left waiting when one fails.
	a, aerr := attrs.Reply()
	g, gerr := geom.Reply()
	p, perr := pos.Reply()
	for _, err := range []error{aerr, gerr, perr} {
		if err != nil {
			return Rect{}, err
		}
	}
	if a.MapState != xproto.MapStateViewable {
		return Rect{}, ErrWindowHidden
	}
	return Rect{X: int(p.DstX), Y: int(p.DstY), W: int(g.Width), H: int(g.Height)}, nil
}

// windowError turns the X errors a destroyed window causes (BadWindow from
// GetWindowAttributes and TranslateCoordinates, BadDrawable from
// GetGeometry) into ErrWindowGone.
func windowError(err error) error {
	var (
		bw xproto.WindowError
		bd xproto.DrawableError
	)
	if errors.As(err, &bw) || errors.As(err, &bd) {
		return ErrWindowGone
	}
	return err
}
