//go:build linux

package desktop

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
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
//
// The chip's name comes late, though. Chromium first renames the browser
// window (its title tells a screen reader, in the browser's language, that
// a permission was requested) and the tab, and names the chip in a later
// task: on a loaded machine, after the round trips that settle the
// action. A chip that shows again with the name it had (a second prompt on
// a page) is not renamed at all: only its bubble says it. Views send no
// event as they show or hide, nor as their children change, so what tells
// that a chip appeared is the state of its container (the views class
// PermissionDashboardView), which shows with a chip and hides with the
// last: the watch reads it when a browser window is renamed, one call
// (windows remembers where each window's container is, and whether it
// showed at the window's last rename). A browser busy with the prompt
// answers that call late, after the action's quiet window may have
// passed, so a rename holds the action at once, as a maybe (maybeKey), and
// the watch's next event (the tab's rename) reads the container: the hold
// ends unless the container shows and had not at the window's rename
// before, that is, unless a chip appeared. Such a chip may ask, or be an
// indicator (the camera's "in use" shares the container), so it holds the
// action for maybeHold at most, until its name asks (which holds it until
// the bubble shows, as above), the bubble shows or the answer's icon
// changes; a later rename that finds the container hidden (a navigation)
// ends it. A plain navigation, a new title or a page playing audio shows
// no chip, and holds the action until the next event.

// Chromium ignores clicks on a prompt's buttons for a moment after it
// shows (its input protection against clickjacking: about the double-click
// interval, 500 ms), and no event says when that ends. A click on a
// prompt waits until it has shown for promptProtection, counted from the
// showing event; an agent reading the reply is rarely that quick anyway.
const promptProtection = 600 * time.Millisecond

// The views classes of the address bar's permission chip, of the view
// that holds it (and the camera's indicator), of the icon that shows a
// site's permission once answered, and of a browser window.
const (
	permissionChipClass = "PermissionChipView"
	dashboardClass      = "PermissionDashboardView"
	contentSettingClass = "ContentSettingImageView"
	browserWindowClass  = "BrowserRootView"
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

// maybeKey names a window's rename, then the chip that appeared with it,
// until the chip asks; maybeHold is how long it may hold the action. A
// chip that asks names itself within 70 ms of the window's rename, or its
// bubble shows within 2 s, at a load of 30 on two cores; one that does not
// ask (an indicator) holds the action for as long.
const (
	maybeKey  = "permission chip"
	maybeHold = 3 * time.Second
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
	asking   bool                                 // a chip asked: promptKey is in flight
	// maybe is the browser window whose rename holds the action as a
	// chip that may ask (maybeKey is in flight); unsure says the next
	// event checks it.
	maybe    atspi.Ref
	unsure   bool
	searched map[atspi.Ref]bool // windows whose chip container this watch looked for
	windows  *windowMemory      // the desktop's memory of browser windows
	// states reads an object's states; nil is conn.States.
	states func(context.Context, atspi.Ref) (atspi.States, error)
}

// event says what an event means for settling, beyond plain activity: a
// permission chip asking is work in flight, which an alert or dialog
// showing (the bubble) or the answer's icon ends; a browser window
// renamed may be a chip appearing (see window). ok is false for other
// events.
func (p *prompts) event(e atspi.Event) (ev settle.Event, ok bool) {
	if ev, ok = p.meaning(e); ok || p.maybe.IsNull() {
		return ev, ok
	}
	switch {
	case p.asking || p.bubble != "" || p.answered:
		// A question, the bubble or an answer took over.
		return p.endMaybe()
	case p.unsure:
		p.unsure = false
		if _, appeared, _ := p.observe(p.maybe); !appeared {
			return p.endMaybe()
		}
	}
	return ev, false
}

// meaning is what an event means by itself.
func (p *prompts) meaning(e atspi.Event) (ev settle.Event, ok bool) {
	switch {
	case e.Type == "object:property-change:accessible-name":
		if _, known := p.windows.get(e.Source); known {
			return p.window(e.Source)
		}
		switch p.class(e.Source) {
		case contentSettingClass:
			p.answered = true
			return p.end()
		case permissionChipClass:
			if p.answered {
				return ev, false
			}
			if name, _ := e.Data.(string); name != "" && p.chip == "" {
				p.chip = name
			}
			p.asking = true
			return settle.Event{Kind: settle.Busy, Key: promptKey, Hold: promptHold}, true
		case browserWindowClass:
			p.windows.put(e.Source, browserWindow{})
			return p.window(e.Source)
		}
		return ev, false
	case e.Type == "object:state-changed:showing" && e.Detail1 == 1 && (p.chip != "" || !p.maybe.IsNull()):
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
		return p.end()
	}
	return ev, false
}

// window says what the rename of a browser window means: the first one
// holds the action at once, for the next event to check (event); another
// checks at once, and ends the hold unless a chip appeared. After a
// question, a bubble or an answer, and for another window, it only keeps
// the container's state.
func (p *prompts) window(frame atspi.Ref) (ev settle.Event, ok bool) {
	switch {
	case p.answered || p.asking || p.bubble != "":
		p.observe(frame)
	case p.maybe.IsNull():
		p.maybe, p.unsure = frame, true
		return settle.Event{Kind: settle.Busy, Key: maybeKey, Hold: maybeHold}, true
	case frame != p.maybe:
		p.observe(frame) // another window's
	default:
		showing, appeared, _ := p.observe(frame)
		if !showing || p.unsure && !appeared {
			return p.endMaybe()
		}
		p.unsure = false
	}
	return ev, false
}

// end ends the prompt's work in flight: a chip's asking, else its
// appearing.
func (p *prompts) end() (settle.Event, bool) {
	if !p.maybe.IsNull() && !p.asking {
		return p.endMaybe()
	}
	p.asking = false
	return settle.Event{Kind: settle.Idle, Key: promptKey}, true
}

// endMaybe ends the hold of a chip that may ask.
func (p *prompts) endMaybe() (settle.Event, bool) {
	p.maybe, p.unsure = atspi.Ref{}, false
	return settle.Event{Kind: settle.Idle, Key: maybeKey}, true
}

// observe reads whether the chip container of a browser window is
// showing, and says whether it appeared since the window's last rename
// (or ever, for the first); ok is false when the window has none this
// watch could find.
func (p *prompts) observe(frame atspi.Ref) (showing, appeared, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), lookupCap)
	defer cancel()
	w, _ := p.windows.get(frame)
	if !w.searched {
		if p.searched[frame] {
			return false, false, false
		}
		if p.searched == nil {
			p.searched = map[atspi.Ref]bool{}
		}
		p.searched[frame] = true
		var err error
		if w.dashboard, err = findClass(ctx, p.conn, frame, dashboardClass); err != nil {
			return false, false, false
		}
		w.searched = true
		p.windows.put(frame, w)
	}
	if w.dashboard.IsNull() {
		return false, false, false
	}
	read := p.states
	if read == nil {
		read = p.conn.States
	}
	st, err := read(ctx, w.dashboard)
	if err != nil || st.Has(atspi.StateDefunct) {
		p.windows.put(frame, browserWindow{})
		return false, false, false
	}
	showing = st.Has(atspi.StateShowing)
	appeared = showing && !w.showing
	w.showing = showing
	p.windows.put(frame, w)
	return showing, appeared, true
}

// errNoCache says an application's cache could not be read.
var errNoCache = errors.New("no cache to read")

// findClass looks for the first object of a views class in a browser
// window: it reads the window's application from its cache (one call),
// then the attributes of the window's objects but those in web documents
// (a page holds many, none a view): first those beside an entry (the
// address bar's), then the others, all calls of a round at once. It finds
// nothing, without an error, in a window without one.
func findClass(ctx context.Context, conn *atspi.Conn, frame atspi.Ref, class string) (atspi.Ref, error) {
	app := atspi.Ref{Bus: frame.Bus, Path: atspi.Root.Path}
	t, err := conn.ReadApp(ctx, app, atspi.ReadOptions{Descend: func(*atspi.Item) bool { return false }})
	if err != nil {
		return atspi.Ref{}, err
	}
	if !t.Cached {
		return atspi.Ref{}, errNoCache // to look again another time
	}
	near, rest := candidates(t, frame)
	for _, round := range [][]*atspi.Item{near, rest} {
		if err := conn.Fill(ctx, round, atspi.FillOptions{Attributes: func(*atspi.Item) bool { return true }}); err != nil {
			return atspi.Ref{}, err
		}
		for _, it := range round {
			if it.Attributes["class"] == class {
				return it.Ref, nil
			}
		}
	}
	return atspi.Ref{}, nil
}

// candidates are the objects of a browser window that may be a view: all
// but those in web documents, those beside an entry first.
func candidates(t *atspi.Tree, frame atspi.Ref) (near, rest []*atspi.Item) {
	win := t.Items[frame]
	if win == nil {
		return nil, nil
	}
	besideEntry := map[atspi.Ref]bool{} // the parents of entries
	var walk func(it *atspi.Item, depth int)
	walk = func(it *atspi.Item, depth int) {
		for _, r := range it.Children {
			if c := t.Items[r]; c != nil && c.Role != atspi.RoleDocumentWeb && depth < 64 {
				rest = append(rest, c)
				if c.Role == atspi.RoleEntry {
					besideEntry[it.Ref] = true
				}
				walk(c, depth+1)
			}
		}
	}
	walk(win, 0)
	rest = slices.DeleteFunc(rest, func(it *atspi.Item) bool {
		if besideEntry[it.Parent] {
			near = append(near, it)
			return true
		}
		return false
	})
	return near, rest
}

// windowMemory remembers, for a desktop, the browser windows its watches
// saw renamed: each window's chip container once found (a window's views
// live as long as it does, and finding one reads them all), and whether it
// showed at the window's last rename.
type windowMemory struct {
	mu sync.Mutex
	m  map[atspi.Ref]browserWindow
}

// browserWindow is what windowMemory remembers of one.
type browserWindow struct {
	dashboard atspi.Ref // its chip container; null when none or not looked for
	searched  bool      // the container was looked for
	showing   bool      // the container showed at the window's last rename
}

func (m *windowMemory) get(frame atspi.Ref) (browserWindow, bool) {
	if m == nil {
		return browserWindow{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.m[frame]
	return w, ok
}

func (m *windowMemory) put(frame atspi.Ref, w browserWindow) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[atspi.Ref]browserWindow{}
	}
	m.m[frame] = w
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
