package selector

import (
	"testing"
)

func TestCanonicalRole(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"button", "button"},
		{"Button", "button"},
		{"Edit", "textbox"},
		{"CheckBox", "checkbox"},
		{"RadioButton", "radio"},
		{"Tab", "tab"}, // canopy's own meaning wins over UIA's Tab strip
		{"TabItem", "tab"},
		{"Hyperlink", "link"},
		{"Image", "img"},
		{"DataGrid", "grid"},
		{"DataItem", "row"},
		{"Spinner", "spinbutton"},
		{"StatusBar", "status"},
		{"HeaderItem", "columnheader"},
		{"Pane", "group"},
		{"push button", "button"},
		{"push_button", "button"},
		{"PushButton", "button"},
		{"PUSH-BUTTON", "button"},
		{"toggle button", "togglebutton"},
		{"entry", "textbox"},
		{"password text", "textbox"},
		{"page tab", "tab"},
		{"page_tab_list", "tablist"},
		{"check box", "checkbox"},
		{"check menu item", "menuitemcheckbox"},
		{"radio menu item", "menuitemradio"},
		{"table cell", "cell"},
		{"table row", "row"},
		{"tree table", "treegrid"},
		{"label", "text"},
		{"frame", "window"},
		{"file chooser", "dialog"},
		{"popup menu", "menu"},
		{"document web", "document"},
		{"icon", "img"},
		{"filler", "generic"},
		{"panel", "generic"},
		{"text", "text"},
		{"StaticText", "text"},
		{"RootWebArea", "document"},
		{"doc-toc", "doc-toc"},
	} {
		got, ok := CanonicalRole(tt.in)
		if !ok || got != tt.want {
			t.Errorf("CanonicalRole(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "buton", "xyzzy", "push  buttons"} {
		if got, ok := CanonicalRole(bad); ok {
			t.Errorf("CanonicalRole(%q) = %q, want not ok", bad, got)
		}
	}
}

func TestATSPIRole(t *testing.T) {
	for in, want := range map[string]string{
		"text": "textbox", "frame": "window", "push button": "button", "label": "text",
		"page tab": "tab", "panel": "generic",
	} {
		if got, ok := ATSPIRole(in); !ok || got != want {
			t.Errorf("ATSPIRole(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestRoleTables checks that every alias leads to canonical roles, that every
// canonical role is matched by its own name, and that every role the tree
// package treats specially is known.
func TestRoleTables(t *testing.T) {
	for k, rs := range roleAliases {
		if k != normRole(k) {
			t.Errorf("alias key %q is not normalised (%q)", k, normRole(k))
		}
		for _, r := range rs {
			if !contains(canonicalRoles, r) {
				t.Errorf("alias %q maps to %q, which is not a canonical role", k, r)
			}
		}
	}
	for _, r := range canonicalRoles {
		if !contains(rolesFor(r), r) {
			t.Errorf("role:%s does not match role %q (means %v)", r, r, rolesFor(r))
		}
	}
	treeRoles := []string{
		// actionRoles, scopeRoles and proseRoles of package tree, and its constants.
		"button", "link", "textbox", "searchbox", "checkbox", "radio", "switch",
		"combobox", "listbox", "option", "menuitem", "menuitemcheckbox", "menuitemradio",
		"tab", "slider", "spinbutton", "scrollbar", "treeitem", "row", "summary", "menubutton", "splitbutton", "togglebutton",
		"dialog", "alertdialog", "form", "table", "grid", "treegrid", "tree", "list",
		"menu", "menubar", "tablist", "tabpanel", "toolbar", "navigation", "main",
		"region", "search", "complementary", "banner", "contentinfo", "article",
		"group", "radiogroup", "iframe", "window", "application", "alert", "status",
		"log", "feed", "figure", "details", "section",
		"text", "paragraph", "blockquote", "code", "pre", "term",
		"definition", "note", "emphasis", "strong", "mark", "time", "abbr", "subscript",
		"superscript", "deletion", "insertion", "caption", "figcaption",
		"generic", "document", "unread", "heading", "img", "listitem", "cell", "gridcell",
		"columnheader", "rowheader", "rowgroup", "none", "presentation", "progressbar",
		"separator", "tooltip", "meter", "canvas",
	}
	for _, r := range treeRoles {
		if !contains(canonicalRoles, r) {
			t.Errorf("tree role %q is not a canonical role", r)
		}
	}
}

func TestSuggestRole(t *testing.T) {
	for in, want := range map[string]string{
		"buton": "button", "butotn": "button", "chekbox": "checkbox", "textbx": "textbox",
		"hedding": "heading", "diaolg": "dialog", "pushbuton": "button", "xyzzy": "",
		"a": "",
	} {
		if got := suggestRole(in); got != want {
			t.Errorf("suggestRole(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"button", "buton", 1},
		{"button", "butotn", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"né", "ne", 1},
	} {
		if d := EditDistance(tt.a, tt.b); d != tt.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, d, tt.d)
		}
	}
}
