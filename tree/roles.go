package tree

// Canonical roles that the shared code treats specially. Every other role is
// an ARIA role name in lowercase, passed through as the source gives it.
const (
	RoleText     = "text"     // static text; printed as a bare quoted string
	RoleGeneric  = "generic"  // a wrapper with no semantics; flattened when unnamed
	RoleDocument = "document" // a page or frame document
	RoleFrame    = "iframe"   // a frame owner; its document's content sits under it
	RoleUnread   = "unread"   // a placeholder for children a source did not read
)

// actionRoles are roles an agent can act on: they always get a ref.
var actionRoles = set(
	"button", "link", "textbox", "searchbox", "checkbox", "radio", "switch",
	"combobox", "listbox", "option", "menuitem", "menuitemcheckbox", "menuitemradio",
	"tab", "slider", "spinbutton", "scrollbar", "treeitem", "row", "summary", "menubutton", "splitbutton", "togglebutton",
)

// scopeRoles are containers an agent may scope to (a selector's `>>`, a
// snapshot's --scope): they get a ref too.
var scopeRoles = set(
	"dialog", "alertdialog", "form", "table", "grid", "treegrid", "tree", "list",
	"menu", "menubar", "tablist", "tabpanel", "toolbar", "navigation", "main",
	"region", "search", "complementary", "banner", "contentinfo", "article",
	"group", "radiogroup", "iframe", "window", "application", "alert", "status",
	"log", "feed", "figure", "details", "section",
)

// proseRoles hold running text. A run of them among siblings is one "run of
// similar siblings" for the budget, whatever the exact role.
var proseRoles = set(RoleText, "paragraph", "blockquote", "code", "pre", "term",
	"definition", "note", "emphasis", "strong", "mark", "time", "abbr", "subscript",
	"superscript", "deletion", "insertion", "caption", "figcaption")

// IsActionRole reports whether role names something an agent acts on.
func IsActionRole(role string) bool { return actionRoles[role] }

// IsScopeRole reports whether role names a container worth scoping to.
func IsScopeRole(role string) bool { return scopeRoles[role] }

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// pluralRole names a run of n nodes of role in an elision line:
// "rows", "list items", "links", "paragraphs".
func pluralRole(role string, n int) string {
	word, ok := map[string]string{
		"row":       "rows",
		"listitem":  "list items",
		"text":      "texts",
		"treeitem":  "tree items",
		"menuitem":  "menu items",
		"gridcell":  "cells",
		"cell":      "cells",
		"option":    "options",
		"paragraph": "paragraphs",
		"prose":     "paragraphs",
		"mixed":     "items",
	}[role]
	if !ok {
		word = role + "s"
	}
	if n == 1 {
		switch word {
		case "list items":
			return "list item"
		case "tree items":
			return "tree item"
		case "menu items":
			return "menu item"
		case "items":
			return "item"
		}
		if len(word) > 1 && word[len(word)-1] == 's' {
			return word[:len(word)-1]
		}
	}
	return word
}
