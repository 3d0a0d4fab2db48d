package session

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/keys"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/tree"
)

// A credential stays in its field. Its value is redacted from every text,
// but an agent could still move it without reading it: copy it from its
// field (Ctrl+C) and paste it into a field of another site, or drag it
// there. The executor refuses, on the tree it resolved the action on:
//
//   - a copy or cut chord (ctrl+c, ctrl+x, ctrl+Insert, shift+Delete, the
//     same with meta) pressed in a field that holds a credential — the
//     target, or with none the focused node;
//   - on a page where a field holds a credential, a copy or cut chord
//     after keys in the same press that may move the focus (Tab, Enter,
//     an access key), since the tree cannot tell where the focus goes:
//     pressed alone, the copy is judged on the field the focus reached;
//   - a drag from such a field, and a click on a Copy or Cut menu item on
//     a page with one (the open menu has the focus, not the field).
//
// Reading the clipboard (sensitive) is redacted as every reply is.

// refuseCopy refuses an action that would carry a credential out of its
// field (see above). page is the tree the action was resolved on.
func (s *Session) refuseCopy(a action.Action, target *tree.Node, page *tree.Snapshot) error {
	err := s.copyRule(a, target, page)
	if err != nil && s.rec != nil {
		s.rec.target, s.rec.tier, s.rec.decision = target, a.Tier(), "refused"
	}
	return err
}

// copyRule is refuseCopy's judgement.
func (s *Session) copyRule(a action.Action, target *tree.Node, page *tree.Snapshot) error {
	switch a.Kind {
	case action.Press:
		chords, err := keys.Parse(a.Keys)
		if err != nil {
			return nil // the source reports it
		}
		name := s.red.holds(receiver(page, target))
		for i, c := range chords {
			if !keys.Copy(c) {
				continue
			}
			if name != "" {
				return copyRefused("press "+c.String(), name)
			}
			for _, before := range chords[:i] {
				if movesFocus(before) {
					if other := s.anyHeld(page); other != "" {
						return fmt.Errorf("press %s after %s: copying after keys that may move the focus is refused on a page with a field that holds «credential %s»: press those keys first, then copy in a press of its own: %w",
							c, before, other, policy.ErrDenied)
					}
				}
			}
		}
	case action.Drag:
		if name := s.red.holds(target); name != "" {
			return fmt.Errorf("drag: dragging from a field that holds «credential %s» is refused: a credential never leaves its field; type it by name where it is needed (credential:%s): %w", name, name, policy.ErrDenied)
		}
	case action.Click, action.DoubleClick:
		if target != nil && strings.HasPrefix(target.Role, "menuitem") && copyItem.MatchString(target.Name) {
			// An open menu has the focus: which field it copies from,
			// the tree does not tell.
			if name := s.anyHeld(page); name != "" {
				return fmt.Errorf("%s %q: a Copy or Cut menu item is refused on a page with a field that holds «credential %s»: copy with ctrl+c in the field you mean: %w",
					a.Kind, target.Name, name, policy.ErrDenied)
			}
		}
	}
	return nil
}

// copyRefused is the one-line refusal of copying what a credential field
// holds, by how (the chord or menu item).
func copyRefused(how, name string) error {
	return fmt.Errorf("%s: copying from a field that holds «credential %s» is refused: a credential never leaves its field; type it by name where it is needed (credential:%s): %w",
		how, name, name, policy.ErrDenied)
}

// copyItem matches the name of a menu item that copies or cuts.
var copyItem = regexp.MustCompile(`(?i)^\s*(copy|cut)\b`)

// anyHeld is the name of a credential some field on page holds, or "".
func (s *Session) anyHeld(page *tree.Snapshot) string {
	if page == nil {
		return ""
	}
	name := ""
	tree.Walk(page.Root, func(n *tree.Node) bool {
		if name == "" {
			name = s.red.holds(n)
		}
		return name == ""
	})
	return name
}

// movesFocus says whether a chord may move the focus out of a text field:
// anything but characters, editing and the keys that move the caret or
// the selection inside it.
func movesFocus(c keys.Chord) bool {
	if c.Mods&(keys.Alt|keys.Meta) != 0 {
		return true
	}
	switch c.Key {
	case "Home", "End", "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown",
		"Backspace", "Delete", "Insert", "Shift", "Control":
		return false
	}
	if c.Mods&keys.Ctrl != 0 {
		switch strings.ToLower(c.Key) {
		case "a", "c", "x", "v", "z", "y":
			return false
		}
		return true
	}
	return len([]rune(c.Key)) != 1 // a named key: Tab, Enter, Escape, F6…
}
