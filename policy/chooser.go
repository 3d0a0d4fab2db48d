package policy

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/keys"
	"github.com/canopy-dev/canopy/tree"
)

// A file chooser on the desktop (a browser's Save dialog with --downloads
// ask, the Open dialog a page's file input brings, any application's) is
// a way to write or read any file: a name typed with a "/" in it, a place
// in its sidebar, a folder row, a key that goes up a folder. Below the
// sensitive tier, a file is saved or opened only in the folder the chooser
// starts in (the browser's downloads folder) or by a path inside the
// downloads and files folders: typed text is a plain file name or such a
// path, keys are the ones that edit, confirm or leave, and clicks go to
// buttons and text fields, not to the places and folders it lists.

// checkChooser refuses, below the sensitive tier, input in a file chooser
// that could pick a file outside the downloads and files folders.
func (p *Policy) checkChooser(r Request) error {
	if p.tier >= action.Sensitive || r.Page == nil || r.Page.Root == nil || !r.Action.Acts() {
		return nil
	}
	a := r.Action
	dirs := p.appDirs(r.Downloads)
	for _, n := range receivers(r) {
		if n == nil || chooserOf(r.Page.Root, n) == nil {
			continue
		}
		why := ""
		switch a.Kind {
		case action.Type, action.SetValue:
			if !chooserText(a.Text, dirs) {
				why = fmt.Sprintf("typing %q into a file chooser", a.Text)
			}
		case action.Press:
			if !chooserKeys(a.Keys) {
				why = "pressing " + a.Keys + " in a file chooser"
			}
		case action.Click, action.DoubleClick, action.Hover:
			if n != r.Node && !choosable[n.Role] {
				continue // the label or icon under a button's centre
			}
			switch n.Role {
			case "button", "textbox", "dialog", "window":
			default:
				why = "choosing " + tree.Line(n) + " in a file chooser"
			}
		default:
			why = string(a.Kind) + " in a file chooser"
		}
		if why != "" {
			return fmt.Errorf("%s needs the sensitive tier: at %s, a file chooser saves and opens files only in the folder it starts in or by a path inside %s (--allow sensitive): %w", why, p.tier, where(dirs), ErrDenied)
		}
	}
	return nil
}

// choosable are the roles of what a file chooser lists to choose from:
// places, folders and files.
var choosable = map[string]bool{
	"row": true, "listitem": true, "treeitem": true, "cell": true, "gridcell": true,
	"togglebutton": true, "link": true, "menuitem": true, "option": true, "tab": true,
}

// chooserOf is the file chooser that holds n (n itself when it is one), or
// nil.
func chooserOf(root, n *tree.Node) *tree.Node {
	var found *tree.Node
	var walk func(c *tree.Node, in *tree.Node) bool
	walk = func(c *tree.Node, in *tree.Node) bool {
		if c.Chooser {
			in = c
		}
		if c == n {
			found = in
			return true
		}
		for _, k := range c.Children {
			if walk(k, in) {
				return true
			}
		}
		return false
	}
	walk(root, nil)
	return found
}

// chooserText reports whether text typed into a file chooser keeps to the
// allowed folders: a plain file name (no folder in it, not hidden, not
// from the home folder), or an absolute path inside one of dirs.
func chooserText(text string, dirs []string) bool {
	t := strings.TrimSpace(text)
	if !strings.ContainsAny(t, `/\`) && !strings.HasPrefix(t, "~") && !strings.HasPrefix(t, ".") {
		return true
	}
	return filepath.IsAbs(t) && inside(filepath.Clean(t), dirs)
}

// chooserEditKeys are the keys that edit a name, confirm, or leave a file
// chooser, and do not change its folder.
var chooserEditKeys = map[string]bool{
	"Enter": true, "Escape": true, "Tab": true, "Backspace": true, "Delete": true,
	"ArrowLeft": true, "ArrowRight": true, "Home": true, "End": true, "Space": true, " ": true,
}

// chooserKeys reports whether every chord of spec edits, confirms or
// leaves: the editing keys, ctrl+a, ctrl+l (the location field, whose
// text is judged when typed), and characters other than a path's.
func chooserKeys(spec string) bool {
	chords, err := keys.Parse(spec)
	if err != nil {
		return true // the source refuses it
	}
	for _, c := range chords {
		plain := c.Mods&^keys.Shift == 0
		switch {
		case plain && chooserEditKeys[c.Key]:
		case c.Mods == keys.Ctrl && (strings.EqualFold(c.Key, "a") || strings.EqualFold(c.Key, "l")):
		case plain && utf8.RuneCountInString(c.Key) == 1 && !strings.ContainsAny(c.Key, `/\~.`):
		default:
			return false
		}
	}
	return true
}
