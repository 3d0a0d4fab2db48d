// Package selector is canopy's one selector grammar and matcher (docs/selectors.md):
// it parses selectors such as
//
//	role:button name:Save
//	role:dialog >> role:textbox name:Name
//	role:row name~:john >> role:link name:Edit
//	(role:link || role:button) && name~:next
//	e41
//
// matches them against one or more tree snapshots, and resolves them
// strictly — exactly one node with a ref — for actions.
//
// # Grammar
//
//	selector := chain
//	chain    := alt ( '>>' alt )*            each step among the descendants of the last
//	alt      := conj ( ( '||' | ',' ) conj )*
//	conj     := unary ( ( '&&' | WS ) unary )*   white space also means AND
//	unary    := '!' unary | '(' chain ')' | atom
//	atom     := KEY ':' VALUE | KEY '~:' VALUE | REF
//	VALUE    := bare-word | "quoted \"string\"" | 'single quoted' | /regex/flags
//	REF      := e123 | @e123
//
// `!` binds tightest, then AND, then OR, then `>>`. A bare word runs to white
// space, a parenthesis, a comma or a two-character operator; quote anything
// else. In quotes a backslash escapes the next character, and \n, \r, \t are
// the usual control characters. A regex is Go (RE2) syntax between slashes,
// with `\/` for a slash and the flags i (case-insensitive), s (dot matches a
// newline) and m (multi-line).
//
// # Keys
//
//	role:    canonical role, case-insensitive, with aliases from UI Automation,
//	         AT-SPI and Chromium (role:Edit, role:push_button, role:"page tab");
//	         see CanonicalRole. role:text means static text or a textbox (AT-SPI's
//	         "text" is a text box); role:/re/ matches the canonical role.
//	name:    the accessible name, whole, case-insensitive, whitespace-collapsed
//	         (a GTK mnemonic "_" is ignored); name~: substring; name:/re/ regex
//	         on the raw name.
//	text:    the visible text of the node and its descendants (names, and
//	         values that are not protected), substring, case-insensitive
//	         (text~: is the same); text:/re/ a regex on that text.
//	value:   like name:, on the value; never matches a protected value.
//	id:      like name: (so case-insensitive), on the DOM id or AT-SPI
//	         accessible id.
//	state:   a state of docs/tree.md (state:checked); also state:enabled and
//	         state:unchecked, the absence of disabled and checked.
//	window:  inside a window, dialog or alertdialog with that name.
//	app:     inside an application with that name.
//	tab:     in a browser tab with that title, or that index (tab:2).
//	url:     in a browser tab whose URL contains the value; with * a pattern
//	         over the whole URL (with or without its scheme); /re/ a regex.
//	         A value starting with / that is not a complete /re/flags is a path.
//	nth:     the N-th match of the rest of its group (1-based; -1 is the last).
//
// A group (conj) made only of window:, app:, tab: and url: matches the scope
// itself — the window, the app, or the tab's root — so `window:Save >> …`
// and `tab:2 >> …` scope a search, and `window:Save` alone names the window.
// Inside `!` or mixed with other keys, a scope key matches every node inside
// the scope. A scope in parentheses keeps its meaning: `(tab:2) >> …`.
//
// # Strict resolution
//
// [Resolve] wants exactly one matched node an action can target: any node
// with a ref or a source identity (a heading, a line of text, a list item),
// not only those printed with a ref. A match that contains another match is
// dropped — `text:Helena` matches the list, the row and the text, and the
// innermost is the one meant. It fails with a [*NoMatchError] that names the
// closest candidates or an [*AmbiguousError] that lists the matches, each
// look-alike with the row or item it sits in; both print as one line for an
// agent.
//
// # Matching
//
// Every expression is a set of nodes in document order over a universe: at
// the top, every node of every snapshot but the roots; to the right of
// `>>`, the strict descendants of the left side's matches. AND is
// intersection, OR is union, `!x` is the universe minus x, and parentheses
// evaluate over the same universe. So every key works the same inside every
// combinator.
package selector
