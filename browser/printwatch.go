package browser

import "github.com/canopy-dev/canopy/settle"

// printing notes that the page called window.print(). A headless browser
// prints nothing and goes on; a desktop browser opens its print preview,
// which holds the page (its script and the input that called print) until
// the preview closes, like a JavaScript dialog: the action ends there, with
// the preview's window left for the agent on the desktop.
func (tw *tabWatch) printing(w *watch) {
	tw.mu.Lock()
	own := tw.printingPDF
	tw.mu.Unlock()
	if own {
		return // canopy's own print action (Page.printToPDF fires beforeprint too)
	}
	if tw.b.headless {
		w.outcome("the page asked to print: headless Chromium has no print preview (print saves the page as PDF)")
		return
	}
	tw.setPrinting(true)
	w.outcome(PreviewOutcome)
	w.send(settle.Event{Kind: settle.Block, Key: PreviewKey})
}

// PreviewOutcome is the outcome line of an action after which the page
// asked to print on a desktop browser, which opens its print preview.
const PreviewOutcome = "opened print preview"

// PreviewKey is the key of the Block event the print preview sends: a
// source that shows the preview's window (the desktop) can settle on it
// instead of ending there.
const PreviewKey = "print-preview"

// PreviewOpen reports whether the current tab's page asked to print and
// its print preview (as far as the page knows) has not closed yet.
func (b *Browser) PreviewOpen() bool {
	tw := b.curTab().watchOrNil()
	if tw == nil {
		return false
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.preview
}

// setPrinting records whether the print preview holds the page, and wakes
// an action waiting on its input when it opens.
func (tw *tabWatch) setPrinting(on bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.preview = on
	if on && tw.previewCh != nil {
		close(tw.previewCh)
		tw.previewCh = nil
	}
}

// previewOpened returns a channel closed once the print preview opens (at
// once if it is open).
func (tw *tabWatch) previewOpened() <-chan struct{} {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.preview {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if tw.previewCh == nil {
		tw.previewCh = make(chan struct{})
	}
	return tw.previewCh
}

// ownPrint marks the time Page.printToPDF runs, whose beforeprint is no
// news; the returned func ends it.
func (tw *tabWatch) ownPrint() func() {
	if tw == nil {
		return func() {}
	}
	tw.mu.Lock()
	tw.printingPDF = true
	tw.mu.Unlock()
	return func() {
		tw.mu.Lock()
		tw.printingPDF = false
		tw.mu.Unlock()
	}
}
