//go:build linux

package desktop

import (
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/canopy-dev/canopy/atspi"
)

// rolePanel is AT-SPI's panel (ATSPI_ROLE_PANEL).
const rolePanel atspi.Role = 39

// TestPopupOf: Chromium's bubbles are told by the views class of their
// content, at most popupDepth levels down, whatever their names say.
func TestPopupOf(t *testing.T) {
	t.Parallel()
	ref := func(n string) atspi.Ref {
		return atspi.Ref{Bus: ":1.1", Path: dbus.ObjectPath("/org/a11y/atspi/accessible/" + n)}
	}
	// chain builds win → c1 → … → cN with the class on the last.
	chain := func(depth int, class string) (*atspi.Tree, *atspi.Item) {
		tr := &atspi.Tree{Items: map[atspi.Ref]*atspi.Item{}}
		win := &atspi.Item{Ref: ref("w"), Role: atspi.RoleDialog, Name: "Recent download history", Attributes: map[string]string{"class": "RootView"}}
		tr.Items[win.Ref] = win
		parent := win
		for i := range depth {
			c := &atspi.Item{Ref: ref(string(rune('a' + i))), Role: rolePanel, Attributes: map[string]string{"class": "View"}}
			if i == depth-1 {
				c.Attributes["class"] = class
			}
			parent.Children = append(parent.Children, c.Ref)
			tr.Items[c.Ref] = c
			parent = c
		}
		return tr, win
	}
	for _, tt := range []struct {
		name  string
		depth int
		class string
		want  popupKind
	}{
		{"status bubble", 1, "StatusView", linkStatus},
		{"download bubble", 4, "DownloadBubbleContentsView", downloadBubble},
		{"too deep", popupDepth + 1, "DownloadBubbleContentsView", otherPopup},
		{"another bubble", 3, "PermissionPromptBubbleBaseView", otherPopup},
		{"no attributes read", 0, "", otherPopup},
	} {
		tr, win := chain(tt.depth, tt.class)
		if tt.depth == 0 {
			win.Attributes = nil
		}
		if got := popupOf(tr, win); got != tt.want {
			t.Errorf("%s: popupOf = %v, want %v", tt.name, got, tt.want)
		}
	}
}
