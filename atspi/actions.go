//go:build linux

package atspi

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// ActionNames lists the object's actions (Action.GetActions): "click",
// "activate", "press", "toggle"…
func (c *Conn) ActionNames(ctx context.Context, r Ref) ([]string, error) {
	var acts []struct{ Name, Description, KeyBinding string }
	if err := c.call(ctx, r, ifAction+".GetActions", []any{&acts}); err != nil {
		return nil, err
	}
	names := make([]string, len(acts))
	for i, a := range acts {
		names[i] = a.Name
	}
	return names, nil
}

// DoAction performs the object's i-th action.
func (c *Conn) DoAction(ctx context.Context, r Ref, i int) error {
	var ok bool
	if err := c.call(ctx, r, ifAction+".DoAction", []any{&ok}, int32(i)); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the application refused the action")
	}
	return nil
}

// SetText replaces an editable object's text (EditableText.SetTextContents).
func (c *Conn) SetText(ctx context.Context, r Ref, text string) error {
	var ok bool
	if err := c.call(ctx, r, ifEditableText+".SetTextContents", []any{&ok}, text); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the application refused to change the text")
	}
	return nil
}

// InsertText inserts text at a character offset (EditableText.InsertText).
func (c *Conn) InsertText(ctx context.Context, r Ref, offset int, text string) error {
	var ok bool
	if err := c.call(ctx, r, ifEditableText+".InsertText", []any{&ok}, int32(offset), text, int32(len([]rune(text)))); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the application refused to insert the text")
	}
	return nil
}

// Text returns an object's whole text (Text.GetText).
func (c *Conn) Text(ctx context.Context, r Ref) (string, error) {
	var s string
	err := c.call(ctx, r, ifText+".GetText", []any{&s}, int32(0), int32(-1))
	return s, err
}

// CharCount returns the length of an object's text in characters.
func (c *Conn) CharCount(ctx context.Context, r Ref) (int, error) {
	var n int32
	err := c.property(ctx, r, ifText, "CharacterCount", &n)
	return int(n), err
}

// SetCaret moves the text caret (Text.SetCaretOffset).
func (c *Conn) SetCaret(ctx context.Context, r Ref, offset int) error {
	var ok bool
	return c.call(ctx, r, ifText+".SetCaretOffset", []any{&ok}, int32(offset))
}

// SetValue sets a range's value (the Value interface's CurrentValue).
func (c *Conn) SetValue(ctx context.Context, r Ref, v float64) error {
	return c.call(ctx, r, ifProperties+".Set", nil, ifValue, "CurrentValue", dbus.MakeVariant(v))
}

// Range returns a range's minimum and maximum value.
func (c *Conn) Range(ctx context.Context, r Ref) (lo, hi float64, err error) {
	if err = c.property(ctx, r, ifValue, "MinimumValue", &lo); err != nil {
		return
	}
	err = c.property(ctx, r, ifValue, "MaximumValue", &hi)
	return
}

// SelectChild selects a container's i-th child (Selection.SelectChild).
func (c *Conn) SelectChild(ctx context.Context, r Ref, i int) error {
	var ok bool
	if err := c.call(ctx, r, ifSelection+".SelectChild", []any{&ok}, int32(i)); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the application refused the selection")
	}
	return nil
}

// GrabFocus moves keyboard focus to the object (Component.GrabFocus).
func (c *Conn) GrabFocus(ctx context.Context, r Ref) error {
	var ok bool
	if err := c.call(ctx, r, ifComponent+".GrabFocus", []any{&ok}); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the application refused focus")
	}
	return nil
}

// Extents returns the object's box in screen coordinates.
func (c *Conn) Extents(ctx context.Context, r Ref) (Rect, error) {
	var rect Rect
	err := c.call(ctx, r, ifComponent+".GetExtents", []any{&rect}, uint32(0))
	return rect, err
}

// States reads the object's states now.
func (c *Conn) States(ctx context.Context, r Ref) (States, error) {
	var words []uint32
	if err := c.call(ctx, r, ifAccessible+".GetState", []any{&words}); err != nil {
		return 0, err
	}
	return statesOf(words), nil
}

// Name reads the object's name now.
func (c *Conn) Name(ctx context.Context, r Ref) (string, error) {
	var s string
	err := c.property(ctx, r, ifAccessible, "Name", &s)
	return s, err
}

// Attributes reads the object's toolkit attributes now (Chromium names
// its views' classes there: "class": "PermissionChipView").
func (c *Conn) Attributes(ctx context.Context, r Ref) (map[string]string, error) {
	var m map[string]string
	err := c.call(ctx, r, ifAccessible+".GetAttributes", []any{&m})
	return m, err
}

// RoleOf reads the object's role now.
func (c *Conn) RoleOf(ctx context.Context, r Ref) (Role, error) {
	var role uint32
	err := c.call(ctx, r, ifAccessible+".GetRole", []any{&role})
	return Role(role), err
}

// AppPID returns the process id of the application on bus name bus.
func (c *Conn) AppPID(ctx context.Context, bus string) (int, error) {
	var pid uint32
	err := c.call(ctx, Ref{Bus: "org.freedesktop.DBus", Path: "/org/freedesktop/DBus"},
		"org.freedesktop.DBus.GetConnectionUnixProcessID", []any{&pid}, bus)
	return int(pid), err
}

// Toolkit returns the application's toolkit name and version ("GTK",
// "3.24.38"), from its root's Application interface.
func (c *Conn) Toolkit(ctx context.Context, app Ref) (name, version string, err error) {
	if err = c.property(ctx, app, ifApplication, "ToolkitName", &name); err != nil {
		return
	}
	err = c.property(ctx, app, ifApplication, "Version", &version)
	return
}

// Caret returns the text caret's offset (the Text interface's CaretOffset).
func (c *Conn) Caret(ctx context.Context, r Ref) (int, error) {
	var n int32
	err := c.property(ctx, r, ifText, "CaretOffset", &n)
	return int(n), err
}
