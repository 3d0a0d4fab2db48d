//go:build linux

package desktop

import (
	"os"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/tree"
)

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"Save      ":        "Save",
		"_Save Save":        "Save", // GTK 4.8's mnemonic label and name
		"Save _As":          "Save As",
		"my_file.txt":       "my_file.txt",
		"__init__":          "_init_",
		"  two   spaces ":   "two spaces",
		"Con_nect Connect":  "Connect",
		"_Open _Recent":     "Open Recent",
		"report.txt - Pad ": "report.txt - Pad",
	} {
		if got := cleanName(in); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRoleOf: roles by number; the same number reads the same whatever name
// the toolkit gives it.
func TestRoleOf(t *testing.T) {
	for role, want := range map[atspi.Role]string{
		atspi.RolePushButton:   "button",
		atspi.RoleText:         "textbox",
		atspi.RoleEntry:        "textbox",
		atspi.RolePasswordText: "textbox",
		atspi.RoleCheckBox:     "checkbox",
		atspi.RoleFrame:        "window",
		atspi.RoleLabel:        "text",
		atspi.RoleFileChooser:  "group",
		atspi.Role(39):         "generic", // panel
		atspi.Role(37):         "tab",     // page tab
		atspi.Role(999):        "generic",
	} {
		if got := roleOf(&atspi.Item{Role: role}); got != want {
			t.Errorf("roleOf(%s) = %q, want %q", role, got, want)
		}
	}
}

func TestStates(t *testing.T) {
	on := func(sts ...atspi.State) atspi.States {
		var s atspi.States
		for _, st := range sts {
			s |= 1 << st
		}
		return s
	}
	for _, c := range []struct {
		role atspi.Role
		st   atspi.States
		want tree.State
	}{
		{atspi.RolePushButton, on(atspi.StateEnabled, atspi.StateSensitive), 0},
		{atspi.RolePushButton, on(atspi.StateShowing), tree.Disabled},
		{atspi.RoleCheckBox, on(atspi.StateEnabled, atspi.StateChecked), tree.Checked},
		{atspi.RoleCheckBox, on(atspi.StateEnabled, atspi.StateIndeterminate), tree.Mixed},
		{atspi.RoleToggleButton, on(atspi.StateEnabled, atspi.StateChecked), tree.Pressed},
		{atspi.RoleText, on(atspi.StateEnabled, atspi.StateEditable, atspi.StateMultiLine, atspi.StateFocused), tree.Focused | tree.Multiline},
		{atspi.RoleText, on(atspi.StateEnabled), tree.Readonly},
		{atspi.RolePasswordText, on(atspi.StateEnabled, atspi.StateEditable), tree.Protected},
		{atspi.RoleDialog, on(atspi.StateModal), tree.Modal},
	} {
		if got := statesOf(&atspi.Item{Role: c.role, States: c.st}); got != c.want {
			t.Errorf("%s %b: %v, want %v", c.role, c.st, got, c.want)
		}
	}
}

func TestIsTypeName(t *testing.T) {
	for name, want := range map[string]bool{
		"GtkSpinButton": true, "GtkStackPage": true, "GtkImage": true,
		"Gtk": false, "Gtkfoo": false, "GtkSpin Button": false, "Save": false, "GTK Widget Factory": false, "": false,
	} {
		if got := isTypeName(name); got != want {
			t.Errorf("isTypeName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestAppAndTabNames(t *testing.T) {
	if got := appName("canopy-profile-1 --gtk-version=4 --remote-debugging-pipe", os.Getpid()); got == "" || strings.Contains(got, "--") {
		t.Errorf("appName of a command line = %q, want the program's name", got)
	}
	if got := appName("canopy-profile-1 --gtk-version=4", 0); got != "canopy-profile-1" {
		t.Errorf("appName with no process = %q", got)
	}
	if got := appName("_Mousepad", 1); got != "Mousepad" {
		t.Errorf("appName(_Mousepad) = %q", got)
	}
	for in, want := range map[string]string{
		"Download test page - Memory usage - 24.0 MB": "Download test page",
		"Big - Memory usage - 1,024 KB":               "Big",
		"Memory usage - 2 MB notes":                   "Memory usage - 2 MB notes",
		"Plain":                                       "Plain",
	} {
		if got := tabName(in); got != want {
			t.Errorf("tabName(%q) = %q, want %q", in, got, want)
		}
	}
}
