package site

// PyDocOSPath is the path of the Python os module page, served from
// PyDocDir. It is only available when HasPyDoc reports true.
const PyDocOSPath = "/pydoc/library/os.html"

// Markers are the assertions for one page. Both lists hold plain,
// case-sensitive substrings of a snapshot's text.
type Markers struct {
	// Visible lists strings that must appear in a full accessibility
	// snapshot of the page, including the contents of all of its frames
	// (same-origin and cross-site) and shadow roots.
	Visible []string
	// Hidden lists strings that are in the page's source but must not
	// appear in the snapshot, because the content is not rendered, is
	// hidden from assistive technology, or is in a dialog that is closed.
	Hidden []string
}

// PageMarkers returns the markers of every top-level page, keyed by path
// ("/login.html"). Pages that are only loaded as frames of another page
// (such as /frame-a.html) are covered by their parent's markers. The
// PyDocOSPath entry needs the Python documentation; see HasPyDoc.
//
// The markers describe the page as it is right after loading, before any
// interaction. Document titles are deliberately not used as markers, since
// a snapshot may or may not print them. Each call returns a new map, which
// the caller may modify.
func PageMarkers() map[string]Markers {
	return map[string]Markers{
		"/": {
			Visible: []string{"canopy demo", "MARKER-INDEX", "Login form", "Shadow DOM", "Huge page"},
		},
		"/inbox.html": {
			Visible: []string{"Inbox", "Helena", "Turpis gravida", "Quarterly numbers", "Drafts", "keyboard shortcuts", "nothing opened"},
		},
		"/failures.html": {
			Visible: []string{"FAILURES-MARKER", "Save", "Broken", "Complain", "Flood", "Offline", "Dead", "Fine", "Broken assets"},
		},
		"/failures-assets.html": {
			Visible: []string{"ASSETS-MARKER", "Logo"},
		},
		"/later.html": {
			Visible: []string{"Later effects", "LATER-MARKER", "At once", "Start loop", "Status:", "Frame debounce", "frame idle"},
		},
		"/later-cross.html": {
			Visible: []string{"Later effects across sites", "LATER-CROSS-MARKER", "Cross debounce", "cross idle"},
		},
		"/geo.html": {
			Visible: []string{"Where am I", "Locate me", "Print this page", "nowhere yet", "GEO-PRINT-MARKER"},
		},
		"/popups.html": {
			Visible: []string{"POPUP-STORM", "Open help"},
		},
		"/domains.html": {
			Visible: []string{"MARKER-DOMAINS", "Cross link", "Open cross popup", "Search", "Send", "MARKER-DOMAINS-FRAME", "Frame button"},
		},
		"/checkout.html": {
			Visible: []string{"Checkout", "Amount", "Pay now", "Delete all", "Nothing done"},
		},
		"/echo.html": {
			Visible: []string{"Echo form", "Token", "Short copy", "Send", "Upper:", "Spaced:"},
		},
		"/print-secret.html": {
			Visible: []string{"Print secret", "PIN"},
		},
		"/login.html": {
			Visible: []string{
				"Sign in to Acme", "Use your work account.", "Login",
				"Email", "Password", "Remember me", "Sign in", "Forgot password?",
			},
			// The status message only appears after the form is submitted.
			Hidden: []string{"Welcome back"},
		},
		"/frames.html": {
			Visible: []string{
				"MARKER-MAIN",
				"MARKER-FRAME-A", "Button in A",
				"MARKER-NESTED-FRAME", "Link in B",
			},
		},
		"/frame-boxes.html": {
			Visible: []string{
				"MARKER-FRAME-BOXES",
				"Button in padded", "Button in uneven", "Button in scrolled", "Button in inner",
				"Button in bare", "Button in cross", "Button in open shadow", "Button in closed shadow",
				"Button in zoomed",
			},
		},
		"/cross.html": {
			Visible: []string{
				"MARKER-CROSS-PARENT",
				"MARKER-OOPIF", "Cross input", "Cross button",
				"MARKER-OOPIF-NESTED",
			},
		},
		"/mixed.html": {
			Visible: []string{
				"MARKER-MIXED-TOP",
				"MARKER-MIXED-SAME",
				"MARKER-MIXED-CROSS", "Mixed cross button",
			},
		},
		"/shadow.html": {
			Visible: []string{
				"MARKER-SHADOW-LIGHT",
				"MARKER-OPEN-SHADOW", "Open shadow button",
				"MARKER-NESTED-SHADOW",
				"MARKER-CLOSED-SHADOW", "Closed shadow button",
				"MARKER-SLOT-HOST", "MARKER-SLOTTED",
				"MARKER-DECLARATIVE-SHADOW",
			},
		},
		// The modal dialog is opened at load, which makes the rest of the
		// document inert; Chromium marks inert nodes as ignored. That is
		// why the ARIA dialog has a page of its own.
		"/dialogs.html": {
			Visible: []string{"Confirm delete", "MARKER-MODAL-DIALOG", "Cancel", "Delete"},
			Hidden:  []string{"MARKER-CLOSED-DIALOG", "Never shown"},
		},
		"/aria-dialog.html": {
			Visible: []string{"Settings", "MARKER-ARIA-DIALOG", "Dark mode", "Save settings"},
		},
		"/hidden.html": {
			Visible: []string{"MARKER-VISIBLE", "MARKER-OFFSCREEN"},
			Hidden: []string{
				"MARKER-DISPLAY-NONE",
				"MARKER-VISIBILITY-HIDDEN",
				"MARKER-HIDDEN-ATTR",
				"MARKER-ARIA-HIDDEN",
				"MARKER-ARIA-HIDDEN-CHILD",
			},
		},
		"/clickable.html": {
			Visible: []string{
				"Clickable things", "Close panel", "to continue", "Open details",
				"Notes", "Projects", "Alpha", "Beta", "Archive",
			},
			// Shown only after clicking "Open details" or expanding
			// "Archive".
			Hidden: []string{"MARKER-DETAILS", "Old reports"},
		},
		"/product.html": {
			Visible: []string{"Trail shoe", "MARKER-PRODUCT", "Add to cart"},
			// The JSON-LD and OpenGraph tags are metadata, not content.
			Hidden: []string{"schema.org", "faked by the page", "95.00"},
		},
		"/article.html": {
			Visible: []string{"How trees grow", "MARKER-ARTICLE", "By Ada Lovelace"},
			Hidden:  []string{"Broken", "Canopy journal"},
		},
		"/blocks.html": {
			Visible: []string{"Helena", "Turpis gravida", "quarterly", "Storage", "ada", "MARKER-INLINE", "travel", "help pages"},
		},
		"/list.html": {
			Visible: []string{"Shopping list", "New item", "Add item", "Bread", "Apples"},
		},
		"/table.html": {
			Visible: []string{"Users", "User 0001", "user0001@example.test", "User 1000"},
		},
		"/huge.html": {
			Visible: []string{"HUGE-FIRST"},
		},
		"/slow.html": {
			Visible: []string{"MARKER-SLOW"},
		},
		PyDocOSPath: {
			Visible: []string{"Miscellaneous operating system interfaces"},
		},
	}
}
