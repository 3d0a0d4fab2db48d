//go:build linux

package desktop

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/tree"
)

// roleOf maps an object's numeric AT-SPI role to a canonical role.
func roleOf(it *atspi.Item) string {
	switch it.Role {
	case atspi.RoleFileChooser:
		// The chooser widget inside a dialog; the snapshot makes a top-level
		// one a dialog.
		return "group"
	case atspi.RolePasswordText, atspi.RoleEntry, atspi.RoleText:
		return "textbox"
	case atspi.RoleInternalFrame:
		if it.Attributes["tag"] == "iframe" {
			// Chromium's iframe in web content the desktop reads (a dialog
			// drawn with web content), not a window.
			return "iframe"
		}
	}
	if r, ok := selector.ATSPIRole(it.Role.String()); ok {
		return r
	}
	return tree.RoleGeneric
}

// isWindowRole reports whether an AT-SPI role is a top-level window.
func isWindowRole(r atspi.Role) bool {
	switch r {
	case atspi.RoleFrame, atspi.RoleWindow, atspi.RoleDialog, atspi.RoleFileChooser, atspi.RoleAlert:
		return true
	}
	return false
}

// statesOf maps AT-SPI states to canopy's printed states.
func statesOf(it *atspi.Item) tree.State {
	s := it.States
	var out tree.State
	role := roleOf(it)
	if s.Has(atspi.StateFocused) {
		out |= tree.Focused
	}
	if tree.IsActionRole(role) && !s.Has(atspi.StateEnabled) && !s.Has(atspi.StateSensitive) {
		out |= tree.Disabled
	}
	switch it.Role {
	case atspi.RoleToggleButton:
		if s.Has(atspi.StateChecked) || s.Has(atspi.StatePressed) {
			out |= tree.Pressed
		}
	default:
		if s.Has(atspi.StateChecked) {
			out |= tree.Checked
		} else if s.Has(atspi.StatePressed) {
			out |= tree.Pressed
		}
	}
	if s.Has(atspi.StateIndeterminate) && (role == "checkbox" || role == "menuitemcheckbox") {
		out |= tree.Mixed
	}
	if s.Has(atspi.StateSelected) && selectable(role) {
		out |= tree.Selected
	}
	if s.Has(atspi.StateExpanded) {
		out |= tree.Expanded
	} else if s.Has(atspi.StateCollapsed) || s.Has(atspi.StateExpandable) && expandable(role) {
		out |= tree.Collapsed
	}
	if s.Has(atspi.StateRequired) {
		out |= tree.Required
	}
	if role == "textbox" && (s.Has(atspi.StateReadOnly) || !s.Has(atspi.StateEditable)) {
		out |= tree.Readonly
	}
	if s.Has(atspi.StateInvalidEntry) {
		out |= tree.Invalid
	}
	if s.Has(atspi.StateBusy) {
		out |= tree.Busy
	}
	if s.Has(atspi.StateModal) {
		out |= tree.Modal
	}
	if it.Role == atspi.RolePasswordText {
		out |= tree.Protected
	}
	if role == "textbox" && s.Has(atspi.StateMultiLine) {
		out |= tree.Multiline
	}
	return out
}

// selectable roles print "selected"; on others (a focused button) GTK's
// selected state means nothing to an agent.
func selectable(role string) bool {
	switch role {
	case "tab", "option", "row", "listitem", "treeitem", "cell", "gridcell", "menuitem", "radio":
		return true
	}
	return false
}

// expandable roles print "collapsed" when they could expand.
func expandable(role string) bool {
	switch role {
	case "treeitem", "row", "menuitem", "menubutton", "combobox":
		return true
	}
	return false
}

// wantsText says whether a snapshot shows the object's text as its value.
func wantsText(it *atspi.Item) bool {
	switch it.Role {
	case atspi.RoleText, atspi.RoleEntry, atspi.RoleSpinButton:
		return true
	}
	return false
}

// wantsValue says whether a snapshot shows the object's Value.
func wantsValue(it *atspi.Item) bool {
	switch roleOf(it) {
	case "slider", "progressbar", "meter", "spinbutton":
		return true
	}
	return false
}

// formatValue prints a number without trailing zeros.
func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// cleanName normalises a name as the grammar matches it: spaces trimmed and
// collapsed, GTK mnemonic underscores at the start of a word stripped
// ("_Save" → "Save", "__" → "_"; "my_file" keeps its), and GTK 4.8's
// doubled names ("_Save Save") said once.
func cleanName(s string) string {
	s = tree.CollapseSpace(s)
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		if rs[i] == '_' && i+1 < len(rs) {
			if rs[i+1] == '_' {
				b.WriteRune('_')
				i++
				continue
			}
			if (i == 0 || rs[i-1] == ' ') && isLetter(rs[i+1]) {
				continue // a mnemonic marker
			}
		}
		b.WriteRune(rs[i])
	}
	// GTK 4.8 joins the mnemonic label and the plain name, the mnemonic
	// anywhere in a word: "Con_nect Connect".
	if w := strings.Fields(strings.ReplaceAll(s, "_", "")); len(w)%2 == 0 && len(w) > 0 {
		half := len(w) / 2
		if strings.Join(w[:half], " ") == strings.Join(w[half:], " ") {
			return strings.Join(w[:half], " ")
		}
	}
	return b.String()
}

func isLetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127
}

// isTypeName reports whether a name is a GTK class name ("GtkSpinButton",
// "GtkStackPage"): GTK 4.8 names an object after its class when nothing
// else names it, which tells an agent nothing.
func isTypeName(s string) bool {
	if len(s) < 4 || !strings.HasPrefix(s, "Gtk") || s[3] < 'A' || s[3] > 'Z' {
		return false
	}
	for _, r := range s[3:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// appName is an application's name as shown: its own, unless that is a
// command line (GTK 4 names the file chooser Chromium opens after its
// arguments: "canopy-profile-1 --gtk-version=4 …"), then its program's.
func appName(name string, pid int) string {
	name = cleanName(name)
	i := strings.Index(name, " --")
	if i < 0 {
		return name
	}
	if pid > 0 {
		if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil {
			return filepath.Base(exe)
		}
	}
	return strings.TrimSpace(name[:i])
}

// memoryUsage is the hover card text Chromium adds to a tab's name, which
// changes as the page's memory does.
var memoryUsage = regexp.MustCompile(` - Memory usage - [0-9.,]+ [KMGT]?B$`)

// tabName is a browser tab's name without its memory usage.
func tabName(name string) string {
	return memoryUsage.ReplaceAllString(name, "")
}
