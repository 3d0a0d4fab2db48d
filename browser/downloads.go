package browser

import (
	"fmt"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"

	"github.com/canopy-dev/canopy/settle"
)

// Downloads, as the browser session reports them: each is work in flight
// for the action that started it, with an outcome line when it begins and
// when it ends.

// windowHold is how long the browser's own window that an action is known
// to bring (a download's Save dialog, the question before handing a link
// to another application) may hold the action: the wait ends when a
// window opens (settle.Event.UntilOpened), so the cap is one a loaded
// machine does not outrun. Such a dialog took over a second to show at a
// load of 15.
const windowHold = 10 * time.Second

// A download whose Save dialog is up ends when the dialog closes: the
// action that closes it (Save, Cancel) waits for the download's end, which
// the browser reports a moment after (later on a loaded machine). A watch
// starts with such downloads as work that holds only once a window closed
// (settle.Event.UntilClosed): typing a name into the dialog does not wait
// for them.
func (b *Browser) seedDownloads(w *watch) {
	b.downloadsAsking.Range(func(guid, _ any) bool {
		w.send(settle.Event{Kind: settle.Busy, Key: "dl:" + guid.(string), UntilClosed: true, Hold: windowHold})
		return true
	})
}

// ownFrame reports whether a download from frame id is this session's:
// any, or with a browser context of its own, one from a tab of it (a tab's
// main frame has the tab's id).
func (b *Browser) ownFrame(id cdp.FrameID) bool {
	if b.browserContext == "" {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.tabs {
		if string(t.id) == string(id) {
			return true
		}
	}
	return false
}

// downloadBegins notes a download the page started: work in flight until
// it ends, and the outcome line.
func (b *Browser) downloadBegins(e *cdpbrowser.EventDownloadWillBegin, w *watch) {
	if !b.ownFrame(e.FrameID) {
		return // another browser context's download
	}
	w.outcome("download started " + quoteText(e.SuggestedFilename))
	w.send(settle.Event{Kind: settle.Busy, Key: "dl:" + e.GUID})
	w.send(settle.Event{Kind: settle.Idle, Key: navKey(e.FrameID)})
	b.downloadNames.Store(e.GUID, e.SuggestedFilename)
	if b.askDownloads {
		b.downloadsOpen.Store(e.GUID, true)
	}
}

// SavesWithDialog reports whether a download of this browser is waiting
// for its Save dialog, up or coming: the browser's dialog on the desktop
// then chooses where a file is written (the policy judges what is done in
// it, as in any file chooser).
func (b *Browser) SavesWithDialog() bool {
	open := false
	b.downloadsOpen.Range(func(_, _ any) bool { open = true; return false })
	return open
}

// downloadProgress ends a download's work when it completes or is
// canceled, with its outcome line, and notes one whose Save dialog is up.
func (b *Browser) downloadProgress(e *cdpbrowser.EventDownloadProgress, w *watch) {
	if _, ok := b.downloadNames.Load(e.GUID); !ok && b.browserContext != "" {
		return // not one of this session's downloads
	}
	switch e.State {
	case cdpbrowser.DownloadProgressStateCompleted:
		b.downloadsAsking.Delete(e.GUID)
		b.downloadsOpen.Delete(e.GUID)
		name, _ := b.downloadNames.Load(e.GUID)
		path := e.FilePath
		if path == "" {
			path = b.downloadDir + "/" + fmt.Sprint(name)
		}
		w.outcome(fmt.Sprintf("downloaded %s → %s", quoteText(fmt.Sprint(name)), path))
		w.send(settle.Event{Kind: settle.Idle, Key: "dl:" + e.GUID})
	case cdpbrowser.DownloadProgressStateCanceled:
		b.downloadsAsking.Delete(e.GUID)
		b.downloadsOpen.Delete(e.GUID)
		name, _ := b.downloadNames.Load(e.GUID)
		w.outcome("download canceled " + quoteText(fmt.Sprint(name)))
		w.send(settle.Event{Kind: settle.Idle, Key: "dl:" + e.GUID})
	case cdpbrowser.DownloadProgressStateInProgress:
		if b.askDownloads && e.TotalBytes > 0 && e.ReceivedBytes >= e.TotalBytes {
			// Every byte is in and the download still waits: for the
			// user to choose where it goes in the Save dialog, not for
			// the network. The action has settled once the dialog is up
			// (the desktop says when a window opens), not at MaxBusy.
			// Downloads into a folder complete by themselves and stay
			// busy until then, so their outcome is in the reply. The
			// dialog may take seconds to show on a loaded machine:
			// windowHold.
			b.downloadsAsking.Store(e.GUID, true)
			w.send(settle.Event{Kind: settle.Busy, Key: "dl:" + e.GUID, UntilOpened: true, Hold: windowHold})
		}
	}
}
