//go:build linux

package desktop

import (
	"context"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/settle"
)

// A page that asks for a permission (its location, the camera…) makes
// Chromium show a prompt: at once a chip in the address bar, and a moment
// later (about 400 ms) a bubble, an alert window nested in the browser
// window, with the question and its answers. The page itself goes quiet
// at once, so settling on the page alone ends before the bubble shows. The
// desktop's watch holds the action until the bubble shows (or promptHold
// passes): the chip's appearance is work in flight that a window opening
// ends, so the prompt is in the reply of the click that caused it, with an
// outcome line.
//
// The chip is told by its views class, which is the same in every
// language: its name ("Use your location?") is not. The chip changes its
// name again when the prompt is answered ("Allowed this time"), right
// after the address bar's content setting icon shows the answer: a chip
// that changes after that icon in the same action is an answer, not a
// question, and holds nothing up.

// Chromium ignores clicks on a prompt's buttons for a moment after it
// shows (its input protection against clickjacking: about the double-click
// interval, 500 ms), and no event says when that ends. A click on a
// prompt waits until it has shown for promptProtection, counted from the
// showing event; an agent reading the reply is rarely that quick anyway.
const promptProtection = 600 * time.Millisecond

// The views classes of the address bar's permission chip, and of the icon
// that shows a site's permission once answered.
const (
	permissionChipClass = "PermissionChipView"
	contentSettingClass = "ContentSettingImageView"
)

// promptKey names the prompt as work in flight for the settler;
// promptHold is how long it may hold the action. The bubble shows about
// 400 ms after the chip on a quiet machine, and seconds later on a loaded
// one (it came after 2.5 s at a load of 9–13); the hold ends when it
// shows, so its cap is one a loaded machine does not outrun, and it
// pushes the settle's cap back (see settle.Event.Hold).
const (
	promptKey  = "permission prompt"
	promptHold = 10 * time.Second
)

// lookupCap bounds each question the watch asks about an event's object,
// so a busy application cannot hold the watch up.
const lookupCap = 500 * time.Millisecond

// prompts recognises a permission prompt in one watch's events.
type prompts struct {
	conn     *atspi.Conn
	shown    func(bubble atspi.Ref, at time.Time) // files a bubble that showed
	classes  map[atspi.Ref]string                 // views class of each object asked about
	chip     string                               // the chip's name, once one asked
	bubble   string                               // the bubble's name, once one showed
	answered bool                                 // a content setting icon changed: the prompt was answered
}

// event says what an event means for settling, beyond plain activity: a
// permission chip asking is work in flight, which an alert or dialog
// showing (the bubble) or the answer's icon ends. ok is false for other
// events.
func (p *prompts) event(e atspi.Event) (ev settle.Event, ok bool) {
	switch {
	case e.Type == "object:property-change:accessible-name":
		switch p.class(e.Source) {
		case contentSettingClass:
			p.answered = true
			return settle.Event{Kind: settle.Idle, Key: promptKey}, true
		case permissionChipClass:
			if p.answered {
				return ev, false
			}
			if name, _ := e.Data.(string); name != "" && p.chip == "" {
				p.chip = name
			}
			return settle.Event{Kind: settle.Busy, Key: promptKey, Hold: promptHold}, true
		}
		return ev, false
	case e.Type == "object:state-changed:showing" && e.Detail1 == 1 && p.chip != "":
		ctx, cancel := context.WithTimeout(context.Background(), lookupCap)
		defer cancel()
		role, err := p.conn.RoleOf(ctx, e.Source)
		if err != nil || role != atspi.RoleAlert && role != atspi.RoleDialog {
			return ev, false
		}
		if name, err := p.conn.Name(ctx, e.Source); err == nil && p.bubble == "" {
			p.bubble = name
		}
		p.shown(e.Source, time.Now())
		return settle.Event{Kind: settle.Idle, Key: promptKey}, true
	}
	return ev, false
}

// class returns the views class of an object ("" when it has none or is
// gone), asking once per object.
func (p *prompts) class(r atspi.Ref) string {
	if c, ok := p.classes[r]; ok {
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupCap)
	defer cancel()
	attrs, _ := p.conn.Attributes(ctx, r)
	p.classes[r] = attrs["class"]
	return attrs["class"]
}

// outcome is the line saying a prompt is up, "" when none asked:
// `permission prompt: 127.0.0.1:8080 wants to: Know your location`, in
// the browser's words.
func (p *prompts) outcome() string {
	switch {
	case p.bubble != "":
		return "permission prompt: " + strings.TrimPrefix(strings.TrimPrefix(p.bubble, "https://"), "http://")
	case p.chip != "" && !p.answered:
		return "permission prompt: " + p.chip + " (in the address bar)"
	}
	return ""
}

// promptShown files the prompt bubble that showed last, for
// awaitProtection.
func (d *Desktop) promptShown(bubble atspi.Ref, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.prompt, d.promptAt = bubble, at
}

// awaitProtection waits, before a click on an object inside the prompt
// bubble that showed last, until the bubble's input protection is over.
func (d *Desktop) awaitProtection(ctx context.Context, it *atspi.Item) {
	d.mu.Lock()
	bubble, at := d.prompt, d.promptAt
	inside := false
	for i := 0; i < 64 && it != nil && !inside; i++ {
		inside = it.Ref == bubble
		it = d.items[it.Parent.String()]
	}
	d.mu.Unlock()
	if !inside {
		return
	}
	t := time.NewTimer(time.Until(at.Add(promptProtection)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
