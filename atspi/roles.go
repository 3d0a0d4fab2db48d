//go:build linux

package atspi

import "strconv"

// Role is AT-SPI's numeric role (AtspiRole in atspi-constants.h). Use the
// number, not GetRoleName: GTK 4 and ATK applications give the same number
// different names ("button" and "push button", "text box" and "text").
type Role uint32

// Roles canopy treats specially; the rest are looked up by name.
const (
	RoleInvalid      Role = 0
	RoleAlert        Role = 2
	RoleCheckBox     Role = 7
	RoleComboBox     Role = 11
	RoleDialog       Role = 16
	RoleFileChooser  Role = 19
	RoleFrame        Role = 23
	RoleLabel        Role = 29
	RoleMenu         Role = 33
	RoleMenuItem     Role = 35
	RolePasswordText Role = 40
	RolePushButton   Role = 43
	RoleRadioButton  Role = 44
	RoleScrollBar    Role = 48
	RoleSlider       Role = 51
	RoleSpinButton   Role = 52
	RoleTableCell    Role = 56
	RoleText         Role = 61
	RoleToggleButton Role = 62
	RoleWindow       Role = 69
	RoleApplication  Role = 75
	RoleEntry        Role = 79
	RoleDocumentWeb  Role = 95
)

// roleNames are AtspiRole's names in number order (append-only upstream).
var roleNames = [...]string{
	"invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas",
	"check box", "check menu item", "color chooser", "column header", "combo box",
	"date editor", "desktop icon", "desktop frame", "dial", "dialog", "directory pane",
	"drawing area", "file chooser", "filler", "focus traversable", "font chooser", "frame",
	"glass pane", "html container", "icon", "image", "internal frame", "label",
	"layered pane", "list", "list item", "menu", "menu bar", "menu item", "option pane",
	"page tab", "page tab list", "panel", "password text", "popup menu", "progress bar",
	"push button", "radio button", "radio menu item", "root pane", "row header",
	"scroll bar", "scroll pane", "separator", "slider", "spin button", "split pane",
	"status bar", "table", "table cell", "table column header", "table row header",
	"tearoff menu item", "terminal", "text", "toggle button", "tool bar", "tool tip",
	"tree", "tree table", "unknown", "viewport", "window", "extended", "header", "footer",
	"paragraph", "ruler", "application", "autocomplete", "editbar", "embedded", "entry",
	"chart", "caption", "document frame", "heading", "page", "section",
	"redundant object", "form", "link", "input method window", "table row", "tree item",
	"document spreadsheet", "document presentation", "document text", "document web",
	"document email", "comment", "list box", "grouping", "image map", "notification",
	"info bar", "level bar", "title bar", "block quote", "audio", "video", "definition",
	"article", "landmark", "log", "marquee", "math", "rating", "timer", "static",
	"math fraction", "math root", "subscript", "superscript", "description list",
	"description term", "description value", "footnote", "content deletion",
	"content insertion", "mark", "suggestion", "push button menu",
}

// String returns the role's AT-SPI name as atspi-constants.h spells it
// ("push button"), or "role N" for a number newer than this table.
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "role " + strconv.Itoa(int(r))
}
