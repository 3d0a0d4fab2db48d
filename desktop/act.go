//go:build linux

package desktop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/keys"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/xinput"
)

// Do performs an action on the desktop. Objects are driven through their
// AT-SPI interfaces where they have one (a button's action, an entry's
// editable text); the rest through XTEST input at the object's centre.
func (d *Desktop) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (session.Output, error) {
	if err := p.Allows(a.Kind); err != nil {
		return session.Output{}, err
	}
	d.noteActedOn(target)
	if err := d.checkWindowOwner(ctx, p, a, target != nil); err != nil {
		return session.Output{}, err
	}
	if a.At != "" {
		// A point: the input goes there, to whatever is on top, as the
		// agent saw it; target is the node there, for the gate and reply.
		var at *atspi.Item
		if target != nil {
			at, _ = d.item(target)
		}
		return session.Output{}, d.pointerAt(ctx, a, at)
	}
	var it *atspi.Item
	if target != nil {
		var ok bool
		if it, ok = d.item(target); !ok {
			return session.Output{}, fmt.Errorf("%s is not a desktop object (take a new snapshot)", tree.Line(target))
		}
		if err := d.alive(ctx, it); err != nil {
			return session.Output{}, err
		}
	}
	switch a.Kind {
	case action.Click, action.DoubleClick, action.Hover:
		return session.Output{}, d.pointer(ctx, it, target, a)
	case action.Type:
		return session.Output{}, d.typeText(ctx, it, target, a)
	case action.Press:
		return session.Output{}, d.press(ctx, p, it, target, a.Keys)
	case action.Check, action.Uncheck:
		return d.check(ctx, it, target, a)
	case action.Select:
		return session.Output{}, d.selectOption(ctx, it, a.Text)
	case action.SetValue:
		return session.Output{}, d.setValue(ctx, it, a.Text)
	case action.Scroll:
		return session.Output{}, d.scroll(ctx, it, target, a)
	case action.Drag:
		return session.Output{}, d.drag(ctx, target, to)
	case action.OpenApp:
		if err := p.Within(a.Args); err != nil {
			return session.Output{}, err
		}
		return d.openApp(ctx, a)
	case action.Activate:
		return session.Output{}, d.activate(ctx, it, target)
	case action.Extract:
		return d.extract(target, a)
	case action.Screenshot:
		return d.screenshot(ctx, target, a)
	case action.Clipboard:
		return d.clipboardText(ctx, a)
	}
	return session.Output{}, fmt.Errorf("%s works on web pages, not on the desktop", a.Kind)
}

// alive checks that the object is still there and showing: a dialog can
// close between resolving and acting.
func (d *Desktop) alive(ctx context.Context, it *atspi.Item) error {
	if it.Role == atspi.RoleApplication {
		return nil
	}
	st, err := d.conn.States(ctx, it.Ref)
	if errors.Is(err, atspi.ErrDefunct) || err == nil && st.Has(atspi.StateDefunct) {
		return fmt.Errorf("%w (its window closed)", session.ErrStale)
	}
	if err != nil {
		return err
	}
	it.States = st
	return nil
}

// defaultAction returns the index of the action a click means: click,
// press, activate, toggle, jump, open — the first the object offers.
func (d *Desktop) defaultAction(ctx context.Context, it *atspi.Item) (int, bool) {
	if !it.Has("Action") {
		return 0, false
	}
	names, err := d.conn.ActionNames(ctx, it.Ref)
	if err != nil || len(names) == 0 {
		return 0, false
	}
	for _, want := range []string{"click", "press", "activate", "toggle", "jump", "open", "select"} {
		if i := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, want) }); i >= 0 {
			return i, true
		}
	}
	return 0, true
}

// pointer clicks, double-clicks or hovers. A plain left click uses the
// object's own action when it has one (it works whatever covers the
// window); the rest is XTEST input at the object's centre.
func (d *Desktop) pointer(ctx context.Context, it *atspi.Item, n *tree.Node, a action.Action) error {
	if leftClick(a) {
		if i, ok := d.defaultAction(ctx, it); ok {
			d.awaitProtection(ctx, it)
			win := d.modalOf(it)
			if err := d.conn.DoAction(ctx, it.Ref, i); err != nil {
				return err
			}
			d.afterPress(ctx, it, win)
			return nil
		}
	}
	disp, x, y, err := d.aim(ctx, it, n)
	if err != nil {
		return err
	}
	if a.Kind == action.Hover {
		return disp.Move(ctx, x, y)
	}
	win := d.modalOf(it)
	if err := disp.Click(ctx, x, y, xButton(a.Button), clicks(a)); err != nil {
		return err
	}
	if leftClick(a) {
		d.afterPress(ctx, it, win)
	}
	return nil
}

// leftClick says whether a is a plain click: the one that presses a
// button.
func leftClick(a action.Action) bool {
	return a.Kind == action.Click && (a.Button == "" || a.Button == "left") && a.Count <= 1
}

// afterPress waits, after a click on a push button of a modal dialog win
// (nil: none), for the dialog to close (awaitClose): however the button
// was pressed, the app's closing sends nothing a settle could wait for.
func (d *Desktop) afterPress(ctx context.Context, it, win *atspi.Item) {
	if win != nil && it != nil && it.Role == atspi.RolePushButton {
		d.awaitClose(ctx, win)
	}
}

// pointerAt clicks, double-clicks or hovers a point of the screen; it is
// the object there, when known.
func (d *Desktop) pointerAt(ctx context.Context, a action.Action, it *atspi.Item) error {
	fx, fy, err := a.Point()
	if err != nil {
		return err
	}
	disp, err := d.display()
	if err != nil {
		return err
	}
	x, y := int(fx), int(fy)
	if a.Kind == action.Hover {
		return disp.Move(ctx, x, y)
	}
	if err := disp.RaiseAndFocusAt(ctx, x, y); err != nil {
		d.log.Debug("desktop: focus the window at a point", "x", x, "y", y, "err", err)
	}
	var win *atspi.Item
	if it != nil {
		win = d.modalOf(it)
	}
	if err := disp.Click(ctx, x, y, xButton(a.Button), clicks(a)); err != nil {
		return err
	}
	if leftClick(a) {
		d.afterPress(ctx, it, win)
	}
	return nil
}

// xButton is the X button of an action's button name.
func xButton(name string) xinput.Button {
	switch name {
	case "right":
		return xinput.Right
	case "middle":
		return xinput.Middle
	}
	return xinput.Left
}

// clicks is how many clicks an action makes.
func clicks(a action.Action) int {
	if a.Kind == action.DoubleClick {
		return 2
	}
	return max(a.Count, 1)
}

// modalOf returns the modal dialog that holds the object, if any.
func (d *Desktop) modalOf(it *atspi.Item) *atspi.Item {
	if win := d.windowOf(it); win != nil && win.States.Has(atspi.StateModal) {
		return win
	}
	return nil
}

// A click on a modal dialog's button may close it, and closing may take
// the app a while (GTK 4's file chooser saves first; zenity leaves its main
// loop and exits) without an event a settle would wait for. awaitClose
// asks the dialog's state on every event and every awaitCloseTick. The
// wait is counted in the app's answers, not in time: a dialog that is
// still open after its app answered awaitCloseAnswers times stays open
// (a button that does not close it); an app that stopped answering is
// closing, and gets up to awaitCloseCap — on a loaded machine, an exit
// took more than 2 s.
const (
	awaitCloseTick    = 100 * time.Millisecond
	awaitCloseAnswers = 20
	awaitCloseCap     = 20 * time.Second
)

// awaitClose waits, after a click on a modal dialog's button, until the
// dialog is gone, or its app answered awaitCloseAnswers times with it
// open, or awaitCloseCap passes.
func (d *Desktop) awaitClose(ctx context.Context, win *atspi.Item) {
	ch, unsub := d.events.Subscribe()
	defer unsub()
	ctx, cancel := context.WithTimeout(ctx, awaitCloseCap)
	defer cancel()
	tick := time.NewTicker(awaitCloseTick)
	defer tick.Stop()
	for answers := 0; answers < awaitCloseAnswers; answers++ {
		st, err := d.conn.States(ctx, win.Ref)
		if err != nil || st.Has(atspi.StateDefunct) || !d.windowMapped(ctx, win, st) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-ch:
		case <-tick.C:
		}
	}
}

// windowMapped says whether a window is still on screen: its showing state,
// or, for apps that never set it (GTK 4.8), a viewable X window of its
// title.
func (d *Desktop) windowMapped(ctx context.Context, win *atspi.Item, st atspi.States) bool {
	if st.Has(atspi.StateShowing) {
		return true
	}
	if !st.Has(atspi.StateVisible) {
		return false
	}
	titles := titlesOf(d.xWindows(ctx))
	return titles == nil || titles[cleanName(win.Name)]
}

// centre returns the middle of the object's box on screen, read now (the
// snapshot's box when the app does not say).
func (d *Desktop) centre(ctx context.Context, it *atspi.Item, n *tree.Node) (int, int, error) {
	r, err := d.conn.Extents(ctx, it.Ref)
	if err != nil || r.W <= 0 || r.H <= 0 || r.X < -1<<20 {
		if n != nil && n.Bounds != nil {
			b := n.Bounds
			return int(b.X + b.W/2), int(b.Y + b.H/2), nil
		}
		return 0, 0, &session.ActionError{Reason: "it has no box on screen (it is hidden or off-screen)", Err: err}
	}
	dx, dy := d.screenOffset(ctx, it)
	return int(r.X+r.W/2) + dx, int(r.Y+r.H/2) + dy, nil
}

// typeText types into a text box: through EditableText where the object
// has it (replacing the text with clear, else inserting at the caret), by
// focusing it and typing keys where it does not.
func (d *Desktop) typeText(ctx context.Context, it *atspi.Item, n *tree.Node, a action.Action) error {
	if it == nil {
		disp, err := d.display()
		if err != nil {
			return err
		}
		return disp.Type(ctx, a.Text)
	}
	if it.Has("EditableText") && it.States.Has(atspi.StateEditable) {
		if a.Clear {
			if err := d.conn.SetText(ctx, it.Ref, a.Text); err != nil {
				return err
			}
		} else if err := d.insertAtCaret(ctx, it, a.Text); err != nil {
			return err
		}
		if a.Submit {
			return d.submit(ctx, it)
		}
		return nil
	}
	if !it.States.Has(atspi.StateFocusable) && !it.Has("Text") {
		return &session.ActionError{Reason: "it does not take text"}
	}
	if err := d.focus(ctx, it, n); err != nil {
		return err
	}
	disp, err := d.display()
	if err != nil {
		return err
	}
	if a.Clear {
		if err := disp.Press(ctx, mustKeys("ctrl+a Backspace")); err != nil {
			return err
		}
	}
	if err := disp.Type(ctx, a.Text); err != nil {
		return err
	}
	if a.Submit {
		return disp.Press(ctx, mustKeys("Enter"))
	}
	return nil
}

// insertAtCaret inserts text where the caret is, or at the end when the
// object is not focused.
func (d *Desktop) insertAtCaret(ctx context.Context, it *atspi.Item, text string) error {
	offset := -1
	if it.States.Has(atspi.StateFocused) {
		if c, err := d.conn.Caret(ctx, it.Ref); err == nil {
			offset = c
		}
	}
	if offset < 0 {
		n, err := d.conn.CharCount(ctx, it.Ref)
		if err != nil {
			return err
		}
		offset = n
	}
	if err := d.conn.InsertText(ctx, it.Ref, offset, text); err != nil {
		return err
	}
	_ = d.conn.SetCaret(ctx, it.Ref, offset+len([]rune(text)))
	return nil
}

// submit presses Enter in a text box: its activate action where it has
// one, else the key.
func (d *Desktop) submit(ctx context.Context, it *atspi.Item) error {
	if names, err := d.conn.ActionNames(ctx, it.Ref); err == nil {
		if i := slices.Index(names, "activate"); i >= 0 {
			return d.conn.DoAction(ctx, it.Ref, i)
		}
	}
	if err := d.conn.GrabFocus(ctx, it.Ref); err != nil {
		return err
	}
	disp, err := d.display()
	if err != nil {
		return err
	}
	return disp.Press(ctx, mustKeys("Enter"))
}

// focus gives the object keyboard focus: GrabFocus, or a click at its
// centre when the application refuses.
func (d *Desktop) focus(ctx context.Context, it *atspi.Item, n *tree.Node) error {
	x, y, cerr := d.centre(ctx, it, n)
	disp, err := d.display()
	if err != nil {
		return err
	}
	if cerr == nil {
		// Without a window manager, X focus must be moved by hand.
		d.raise(ctx, disp, it, x, y)
	}
	if it.Has("Component") {
		if err := d.conn.GrabFocus(ctx, it.Ref); err == nil {
			return nil
		}
	}
	if cerr != nil {
		return cerr
	}
	return disp.Click(ctx, x, y, xinput.Left, 1)
}

// press sends keys, to the target after focusing it, else to whatever has
// focus; below the sensitive tier, a paste only of text the agent chose
// (paste.go).
func (d *Desktop) press(ctx context.Context, p *policy.Permit, it *atspi.Item, n *tree.Node, spec string) error {
	chords, err := keys.Parse(spec)
	if err != nil {
		return err
	}
	if err := d.checkPaste(p, spec, chords); err != nil {
		return err
	}
	d.notePress(chords)
	if it != nil && it.Role != atspi.RoleApplication {
		if err := d.focus(ctx, it, n); err != nil {
			return err
		}
	}
	disp, err := d.display()
	if err != nil {
		return err
	}
	if it == nil || !keys.Pastes(chords) || !d.clipboardOwned() {
		return disp.Press(ctx, chords)
	}
	// A paste: the app asks the clipboard's owner for the text and
	// inserts it when the owner answers, after the keys and after the
	// round trips a settle makes to the app (seconds later on a loaded
	// machine). Wait for the text to come in.
	ch, unsub := d.events.Subscribe()
	defer unsub()
	if err := disp.Press(ctx, chords); err != nil {
		return err
	}
	d.awaitPaste(ctx, it.Ref.Bus, ch)
	return nil
}

// pasteWait caps how long a paste waits for its text to come in: the
// owner may offer no text (an image), and then nothing comes.
const pasteWait = 5 * time.Second

// awaitPaste waits until the application on bus inserts text, or
// pasteWait passes.
func (d *Desktop) awaitPaste(ctx context.Context, bus string, ch <-chan atspi.Event) {
	t := time.NewTimer(pasteWait)
	defer t.Stop()
	for {
		select {
		case e := <-ch:
			if e.Source.Bus == bus && strings.HasPrefix(e.Type, "object:text-changed:insert") {
				return
			}
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// clipboardOwned reports whether an application owns the clipboard (false
// when it cannot tell).
func (d *Desktop) clipboardOwned() bool {
	c, err := d.clipboard()
	if err != nil {
		return false
	}
	owned, err := c.HasOwner()
	return err == nil && owned
}

// check sets a check box, toggle or radio to the wanted state; a box
// already so is a no-op.
func (d *Desktop) check(ctx context.Context, it *atspi.Item, n *tree.Node, a action.Action) (session.Output, error) {
	on := it.States.Has(atspi.StateChecked) || it.Role == atspi.RoleToggleButton && it.States.Has(atspi.StatePressed)
	if on == (a.Kind == action.Check) {
		return session.Output{Unchanged: true}, nil
	}
	return session.Output{}, d.pointer(ctx, it, n, action.Action{Kind: action.Click})
}

// setValue sets a range's value, or a text box's text.
func (d *Desktop) setValue(ctx context.Context, it *atspi.Item, v string) error {
	if it.Has("Value") {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return &session.ActionError{Reason: fmt.Sprintf("%q is not a number", v)}
		}
		lo, hi, err := d.conn.Range(ctx, it.Ref)
		if err == nil && (f < lo || f > hi) {
			return &session.ActionError{Reason: fmt.Sprintf("%s is outside its range %s…%s", v, formatValue(lo), formatValue(hi))}
		}
		return d.conn.SetValue(ctx, it.Ref, f)
	}
	if it.Has("EditableText") {
		return d.conn.SetText(ctx, it.Ref, v)
	}
	return &session.ActionError{Reason: "it has no value to set"}
}

// scroll turns the wheel over the object (down by default).
func (d *Desktop) scroll(ctx context.Context, it *atspi.Item, n *tree.Node, a action.Action) error {
	if it == nil {
		return &session.ActionError{Reason: "scroll on the desktop needs a target"}
	}
	disp, x, y, err := d.aim(ctx, it, n)
	if err != nil {
		return err
	}
	steps := max(a.Amount/40, 3)
	dx, dy := 0, steps
	switch a.Direction {
	case "up":
		dy = -steps
	case "left":
		dx, dy = -steps, 0
	case "right":
		dx, dy = steps, 0
	}
	return disp.Scroll(ctx, x, y, dx, dy)
}

// drag presses on one object and releases on another.
func (d *Desktop) drag(ctx context.Context, from, to *tree.Node) error {
	a, okA := d.item(from)
	b, okB := d.item(to)
	if !okA || !okB {
		return fmt.Errorf("drag needs two desktop objects")
	}
	x2, y2, err := d.centre(ctx, b, to)
	if err != nil {
		return err
	}
	disp, x1, y1, err := d.aim(ctx, a, from)
	if err != nil {
		return err
	}
	return disp.Drag(ctx, x1, y1, x2, y2)
}

// mustKeys parses a key spec known to be valid.
func mustKeys(s string) []keys.Chord {
	c, err := keys.Parse(s)
	if err != nil {
		panic(err)
	}
	return c
}
