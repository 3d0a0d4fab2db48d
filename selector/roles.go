package selector

import (
	"strings"
)

// canonicalRoles are the roles a canopy tree may hold: ARIA roles in
// lowercase as the browser source passes them through, Chromium's own roles
// that have no ARIA name (lowercased, as browser.chromeRole leaves them), and
// the few roles the tree package and the desktop sources add.
var canonicalRoles = []string{
	// ARIA 1.2 and Core-AAM roles.
	"alert", "alertdialog", "application", "article", "banner", "blockquote",
	"button", "caption", "cell", "checkbox", "code", "columnheader", "combobox",
	"comment", "complementary", "contentinfo", "definition", "deletion", "dialog",
	"directory", "document", "emphasis", "feed", "figure", "form", "generic",
	"grid", "gridcell", "group", "heading", "img", "insertion", "link", "list",
	"listbox", "listitem", "log", "main", "mark", "marquee", "math", "menu",
	"menubar", "menuitem", "menuitemcheckbox", "menuitemradio", "meter",
	"navigation", "none", "note", "option", "paragraph", "presentation",
	"progressbar", "radio", "radiogroup", "region", "row", "rowgroup",
	"rowheader", "scrollbar", "search", "searchbox", "section", "separator",
	"slider", "spinbutton", "status", "strong", "subscript", "suggestion",
	"superscript", "switch", "tab", "table", "tablist", "tabpanel", "term",
	"textbox", "time", "timer", "toolbar", "tooltip", "tree", "treegrid",
	"treeitem",
	// Graphics and digital-publishing roles.
	"graphics-document", "graphics-object", "graphics-symbol",
	"doc-abstract", "doc-acknowledgments", "doc-afterword", "doc-appendix",
	"doc-backlink", "doc-biblioentry", "doc-bibliography", "doc-biblioref",
	"doc-chapter", "doc-colophon", "doc-conclusion", "doc-cover", "doc-credit",
	"doc-credits", "doc-dedication", "doc-endnote", "doc-endnotes",
	"doc-epigraph", "doc-epilogue", "doc-errata", "doc-example", "doc-footnote",
	"doc-foreword", "doc-glossary", "doc-glossref", "doc-index",
	"doc-introduction", "doc-noteref", "doc-notice", "doc-pagebreak",
	"doc-pagefooter", "doc-pageheader", "doc-pagelist", "doc-part",
	"doc-preface", "doc-prologue", "doc-pullquote", "doc-qna", "doc-subtitle",
	"doc-tip", "doc-toc",
	// canopy's own (tree package) and the desktop's.
	"text", "iframe", "unread", "window", "desktop", "titlebar", "summary",
	"menubutton", "splitbutton", "togglebutton",
	// Chromium roles without an ARIA name, lowercased.
	"abbr", "audio", "canvas", "caret", "client", "colorwell", "column", "date",
	"datetime", "details", "embeddedobject", "figcaption", "footer", "header",
	"inputtime", "listgrid", "pane", "pdfroot", "pluginobject", "pre", "ruby",
	"scrollview", "sectionfooter", "sectionheader", "svgroot", "video", "webview",
}

// roleAliases maps names from other vocabularies (UI Automation control
// types, AT-SPI role names, Chromium's internal names, common guesses) to
// canonical roles, keyed by [normRole]. A name that means different things in
// different vocabularies maps to every role it may mean, canopy's own meaning
// first; a selector matches any of them and [CanonicalRole] returns the
// first. A canonical role's own name always wins over an alias ("tab" is a
// tab, not UIA's Tab strip, which is tablist).
var roleAliases = map[string][]string{
	// canopy's "text" is static text; AT-SPI's "text" is an editable text box.
	"text": {"text", "textbox"},
	// AT-SPI's frame is a top-level window; on the web a frame is an iframe.
	"frame": {"window", "iframe"},
	// A page's header and footer are landmarks (banner, contentinfo) or,
	// inside an article, Chromium's sectionheader and sectionfooter.
	"header": {"banner", "sectionheader", "header"},
	"footer": {"contentinfo", "sectionfooter", "footer"},

	// UI Automation control types.
	"appbar":       {"toolbar"},
	"calendar":     {"grid"},
	"custom":       {"generic"},
	"datagrid":     {"grid"},
	"dataitem":     {"row"},
	"edit":         {"textbox"},
	"headeritem":   {"columnheader"},
	"hyperlink":    {"link"},
	"image":        {"img"},
	"pane":         {"group", "generic", "pane"},
	"radiobutton":  {"radio"},
	"semanticzoom": {"group"},
	"spinner":      {"spinbutton"},
	"statusbar":    {"status"},
	"tabitem":      {"tab"},
	"thumb":        {"generic"},

	// AT-SPI role names (with their spaces or underscores removed).
	"acceleratorlabel":     {"text"},
	"animation":            {"img"},
	"autocomplete":         {"combobox"},
	"chart":                {"img"},
	"checkmenuitem":        {"menuitemcheckbox"},
	"colorchooser":         {"dialog"},
	"contentdeletion":      {"deletion"},
	"contentinsertion":     {"insertion"},
	"dateeditor":           {"textbox"},
	"descriptionlist":      {"list"},
	"descriptionterm":      {"term"},
	"descriptionvalue":     {"definition"},
	"desktopframe":         {"desktop"},
	"dial":                 {"slider"},
	"directorypane":        {"group"},
	"documentemail":        {"document"},
	"documentframe":        {"document"},
	"documentpresentation": {"document"},
	"documentspreadsheet":  {"document"},
	"documenttext":         {"document"},
	"documentweb":          {"document"},
	"drawingarea":          {"canvas"},
	"editbar":              {"toolbar"},
	"embedded":             {"iframe"},
	"entry":                {"textbox"},
	"filechooser":          {"dialog"},
	"filler":               {"generic"},
	"fontchooser":          {"dialog"},
	"glasspane":            {"group"},
	"grouping":             {"group"},
	"htmlcontainer":        {"generic"},
	"icon":                 {"img"},
	"imagemap":             {"img"},
	"infobar":              {"status"},
	"inputmethodwindow":    {"window"},
	"internalframe":        {"window"},
	"label":                {"text"},
	"landmark":             {"region"},
	"layeredpane":          {"group"},
	"levelbar":             {"meter"},
	"notification":         {"alert"},
	"optionpane":           {"group"},
	"page":                 {"document"},
	"pagetab":              {"tab"},
	"pagetablist":          {"tablist"},
	"panel":                {"generic", "group"},
	"passwordtext":         {"textbox"},
	"popupmenu":            {"menu"},
	"pushbutton":           {"button"},
	"pushbuttonmenu":       {"menubutton"},
	"radiomenuitem":        {"menuitemradio"},
	"rating":               {"slider"},
	"rootpane":             {"group"},
	"ruler":                {"separator"},
	"scrollpane":           {"group"},
	"splitpane":            {"group"},
	"static":               {"text"},
	"tablecell":            {"cell", "gridcell"},
	"tablecolumnheader":    {"columnheader"},
	"tablerow":             {"row"},
	"tablerowheader":       {"rowheader"},
	"tearoffmenuitem":      {"menuitem"},
	"terminal":             {"textbox"},
	"treetable":            {"treegrid"},
	"unknown":              {"generic"},
	"viewport":             {"generic"},

	// Chromium's internal names and common guesses.
	"anchor":             {"link"},
	"checkbutton":        {"checkbox"},
	"disclosuretriangle": {"button"},
	"dropdown":           {"combobox"},
	"genericcontainer":   {"generic"},
	"labeltext":          {"generic"},
	"layouttable":        {"table"},
	"layouttablecell":    {"cell"},
	"layouttablerow":     {"row"},
	"listboxoption":      {"option"},
	"menulistoption":     {"option"},
	"menulistpopup":      {"generic"},
	"popupbutton":        {"combobox", "button"},
	"progressindicator":  {"progressbar"},
	"rootwebarea":        {"document"},
	"select":             {"combobox", "listbox"},
	"splitter":           {"separator"},
	"statictext":         {"text"},
	"textarea":           {"textbox"},
	"textfield":          {"textbox"},
	"webarea":            {"document"},
}

// atspiOverrides are the AT-SPI names whose AT-SPI meaning differs from
// canopy's meaning of the same word.
var atspiOverrides = map[string]string{
	"text":  "textbox",
	"frame": "window",
}

// roleTable maps every accepted role name, normalised by normRole, to the
// canonical roles it means. Built once; never mutated.
var roleTable = buildRoleTable()

func buildRoleTable() map[string][]string {
	t := make(map[string][]string, len(canonicalRoles)+len(roleAliases))
	for k, v := range roleAliases {
		t[k] = v
	}
	for _, r := range canonicalRoles {
		k := normRole(r)
		if _, ok := t[k]; !ok || !contains(t[k], r) {
			t[k] = []string{r}
		}
	}
	return t
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// normRole folds the spellings of a role name together: case, spaces,
// underscores and hyphens do not count ("Push Button", "push_button" and
// "PushButton" are one name).
func normRole(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch r {
		case ' ', '_', '-':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// rolesFor returns every canonical role name may mean, or nil.
func rolesFor(name string) []string { return roleTable[normRole(name)] }

// CanonicalRole resolves a role name from any vocabulary canopy knows — its
// own lowercase ARIA roles, UI Automation control types ("Edit", "TabItem"),
// AT-SPI role names ("push button", "page_tab") and Chromium's internal names
// — to the one canonical role a source should put in the tree. Case, spaces,
// underscores and hyphens are ignored. A name with several meanings resolves
// to canopy's own: "text" is static text. Sources that read AT-SPI role names
// use [ATSPIRole] instead, which knows that AT-SPI's "text" is a text box.
func CanonicalRole(name string) (role string, ok bool) {
	rs := rolesFor(name)
	if len(rs) == 0 {
		return "", false
	}
	return rs[0], true
}

// ATSPIRole resolves an AT-SPI role name (as GetRoleName or
// atspi-constants.h spell it: "push button", "page tab", "text") to a
// canonical role. It differs from [CanonicalRole] only where AT-SPI's word
// means something else in canopy: AT-SPI "text" is a textbox and "frame" a
// window.
func ATSPIRole(name string) (role string, ok bool) {
	if r, ok := atspiOverrides[normRole(name)]; ok {
		return r, true
	}
	return CanonicalRole(name)
}

// roleDisplay is how a role value prints in a selector's canonical form: the
// canonical role when the name means exactly one, else the normalised name
// (so "role:text" keeps both of its meanings when reprinted).
func roleDisplay(name string) string {
	rs := rolesFor(name)
	if len(rs) == 1 {
		return rs[0]
	}
	return normRole(name)
}

// suggestRole returns the canonical role nearest to an unknown name, or "".
func suggestRole(name string) string {
	n := normRole(name)
	best, bestD := "", 1<<30
	for k, rs := range roleTable {
		d := EditDistance(n, k)
		if d < bestD || d == bestD && rs[0] < best {
			best, bestD = rs[0], d
		}
	}
	if bestD <= closeEnough(n) {
		return best
	}
	return ""
}
