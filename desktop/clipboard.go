//go:build linux

package desktop

import (
	"context"
	"errors"
	"fmt"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/clipboard"
	"github.com/canopy-dev/canopy/session"
)

// clipboardText writes a.Text to the X11 CLIPBOARD, or, with no text,
// reads what is there. The desktop keeps the written text and serves it
// to every paste (X has no clipboard storage: the owner answers) until
// another application copies something or the desktop closes.
//
// A headful Chromium on the same display uses this clipboard too, so the
// page's Ctrl+C and Ctrl+V follow it.
func (d *Desktop) clipboardText(ctx context.Context, a action.Action) (session.Output, error) {
	c, err := d.clipboard()
	if err != nil {
		return session.Output{}, err
	}
	if a.Text != "" {
		if err := c.Write(ctx, a.Text); err != nil {
			return session.Output{}, fmt.Errorf("write the clipboard: %w", err)
		}
		return session.Output{Outcomes: []string{session.ClipboardWritten(a.Text)}}, nil
	}
	text, err := c.Read(ctx)
	switch {
	case errors.Is(err, clipboard.ErrEmpty):
		return session.Output{Outcomes: []string{"the clipboard holds no text"}}, nil
	case err != nil:
		return session.Output{}, fmt.Errorf("read the clipboard: %w", err)
	}
	return session.Output{Text: text}, nil
}

// clipboard returns the desktop's clipboard connection, opened on first
// use and kept open: what canopy wrote stays pasteable while it is.
func (d *Desktop) clipboard() (*clipboard.Clipboard, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.clip != nil {
		return d.clip, nil
	}
	c, err := clipboard.Open("")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
	}
	d.clip = c
	return c, nil
}
