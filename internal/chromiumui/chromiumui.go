// Package chromiumui names what tests rely on in how Chromium draws its own
// user interface — the permission prompt, the print preview, the Save
// dialog it opens, its bubbles — rather than pages.
//
// A page's tree is canopy's to define; the browser's UI is not: Debian
// ships Chromium's point releases as they come (156.0.8078.73 became
// .108 between two sessions), and one of them may rename a button or
// nest a bubble differently. A test that reads that UI says which facts it
// relies on with [Relies]; when it fails, its log names those facts and
// the Chromium it ran against, so a failure from a new point release reads
// as one, not as a bug of canopy's. `canopy doctor` reports the version
// too.
package chromiumui

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/doctor"
)

// Fact is one thing about how Chromium draws its own UI that a test relies
// on, worded as the test reads it. The browser's UI language is pinned to
// en-US wherever a fact names a label.
type Fact string

// The facts tests rely on, in one place: a point release that breaks a
// test breaks one of these.
const (
	// PermissionChip: a page's permission request shows a chip in the
	// address bar first, whose AT-SPI object has the views class
	// PermissionChipView and changes its name when the request comes.
	PermissionChip Fact = `a permission request shows a chip in the address bar (views class "PermissionChipView") that changes its name`
	// PermissionBubble: a moment after the chip, a bubble shows, an alert
	// nested in the browser window, named after the site, whose answers
	// include a button "Allow this time"; answering changes the address
	// bar's content setting icon ("ContentSettingImageView") and closes it.
	PermissionBubble Fact = `a permission prompt's bubble is an alert named after the site, with a button "Allow this time" (en-US); answering changes the icon of class "ContentSettingImageView"`
	// PrintPreview: window.print() in a headful browser opens the print
	// preview (chrome://print) inside the browser window, with a combobox
	// "Destination" and buttons "Save" and "Cancel"; its destination list
	// offers "Save as PDF". While it loads, its combo boxes are disabled
	// (canopy waits for them: workspace's hasControls).
	PrintPreview Fact = `window.print() opens the print preview (chrome://print) in the browser window, with combobox "Destination", buttons "Save" and "Cancel", and a "Save as PDF" destination (en-US); its combo boxes are disabled until it has loaded`
	// SaveDialog: a download that asks where to save (or the print
	// preview's Save) opens a file chooser — the desktop portal's when one
	// is on the session bus, else Chromium's own GTK one — as a dialog with
	// a text field for the name and a button "Save".
	SaveDialog Fact = `a download that asks where to save opens a file chooser (the portal's, else Chromium's GTK one): a dialog with a name field and a button "Save"`
	// ExternalScheme: a link to a scheme another application handles
	// makes Chromium ask, in a dialog of its own, whether to open it; the
	// dialog's first button cancels.
	ExternalScheme Fact = `a link to an external scheme opens Chromium's own dialog with two buttons, the first of which cancels`
	// Bubbles: Chromium's link status bubble and download bubble are
	// windows whose content carries its views class ("StatusView",
	// "DownloadBubbleContentsView") in the AT-SPI attribute "class".
	Bubbles Fact = `the link status and download bubbles carry their views class ("StatusView", "DownloadBubbleContentsView") in the AT-SPI attribute "class"`
	// AddressBar: the browser window's address bar is the text field in
	// its toolbar (AT-SPI role entry), outside the web document, and it
	// has the focus in a new window and after ctrl+l.
	AddressBar Fact = `the address bar is the one text field in the browser window's toolbar, focused in a new window and after ctrl+l`
	// ScaledBoxes: with a device scale factor, Chromium's window gives
	// the boxes of its own UI in device-independent pixels over AT-SPI,
	// and those of its web document in device pixels.
	ScaledBoxes Fact = `with --force-device-scale-factor, AT-SPI boxes of Chromium's UI are in device-independent pixels and those of its web document in device pixels`
)

// versionTimeout caps `chromium --version` (a wrapper script on Debian;
// slow on a loaded machine).
const versionTimeout = 30 * time.Second

// version is the Chromium the tests run against, asked once per test
// binary, only when a test that relies on a fact failed.
var version = sync.OnceValue(func() string {
	path, err := browser.FindExec("")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
	defer cancel()
	v, err := doctor.BrowserVersion(ctx, path, versionTimeout)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return v
})

// Relies records that t reads Chromium's own UI and relies on facts. When
// t fails, its log ends with those facts and the version of the Chromium
// it ran against.
func Relies(t testing.TB, facts ...Fact) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		msg := "this test reads Chromium's own UI and relies on:"
		for _, f := range facts {
			msg += "\n  - " + string(f)
		}
		msg += "\nChromium here: " + version() + "; a point release may have changed one of these."
		t.Log(msg)
	})
}
