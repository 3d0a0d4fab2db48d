package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// Viewport says which part of the current tab's document is in view and
// how large its pixels are, so that a page's boxes can be placed on the screen (the
// workspace does it for a headful browser's page in the desktop's tree).
//
// Three units meet here. CSS px are the page's own (getBoundingClientRect,
// scrollY). Layout px are what Chromium lays the page out in: a CSS px
// times the device scale factor times the browser's zoom (ctrl+plus), the
// two folded into one zoom; the page tree's Bounds are in layout px, since
// DOMSnapshot reports layout boxes (a headless browser at 100% has one
// layout px per CSS px). Screen px are layout px times the pinch zoom.
type Viewport struct {
	// X and Y are the visual viewport's top-left corner in the document, in
	// CSS px: the scroll offset, plus a pinch zoom's pan.
	X, Y float64
	// Zoom is layout px per CSS px: device scale factor × browser zoom.
	Zoom float64
	// Scale is screen px per CSS px: Zoom × pinch zoom.
	Scale float64
}

// layoutMetrics is Page.getLayoutMetrics' answer with the deprecated
// visualViewport, which cdproto no longer declares but Chromium still
// sends: it is the visual viewport in layout px, and its width against
// cssVisualViewport's is the only exact measure of the layout zoom the
// call offers (cssLayoutViewport's sizes are rounded to whole px,
// cssVisualViewport.zoom is the browser zoom alone, without the device
// scale factor).
type layoutMetrics struct {
	Layout *page.VisualViewport `json:"visualViewport"`
	CSS    *page.VisualViewport `json:"cssVisualViewport"`
}

// Viewport reads the current tab's viewport (see [Viewport]) in one
// Page.getLayoutMetrics call. It asks the browser rather than the page's
// script: window.devicePixelRatio and window.visualViewport are the page's
// to overwrite. The call still waits for the page's main thread, which a
// JavaScript dialog holds: the read fails when one is open or opens.
//
// Measured on Chromium 156 (X11): with --force-device-scale-factor=2 the
// visual viewport is 1170 layout px and 585 CSS px wide (Zoom 2); at 150%
// browser zoom 1265 and 843.33 (Zoom 1.5); under a pinch zoom of 2 both
// are 632.5 and cssVisualViewport.scale is 2 (Zoom 1, Scale 2).
func (b *Browser) Viewport(ctx context.Context) (Viewport, error) {
	tab := chromedpTarget(b.tabCtx())
	if tab == nil {
		return Viewport{}, envErrorf("the browser has no open tab")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := b.curTab()
	if t != nil && t.watch != nil {
		go func() {
			select {
			case <-t.watch.dialogOpened():
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	cmd := cdp.Command[cdp.Empty, layoutMetrics]{Method: page.CommandGetLayoutMetrics}
	m, err := cdp.Call(ctx, tab, cmd, cdp.Empty{})
	if err != nil {
		if t != nil && t.watch != nil {
			if d := t.watch.openDialog(); d != nil {
				return Viewport{}, fmt.Errorf("read the page's viewport: the page is blocked by a JavaScript %s (%s)", d.Type, quoteText(d.Message))
			}
		}
		return Viewport{}, fmt.Errorf("read the page's viewport: %w", err)
	}
	if m.CSS == nil || m.Layout == nil {
		return Viewport{}, fmt.Errorf("read the page's viewport: this browser does not describe it in both CSS and layout pixels")
	}
	zoom := m.zoom()
	if zoom == 0 {
		return Viewport{}, fmt.Errorf("read the page's viewport: it has no size (is the window minimised?)")
	}
	pinch := m.CSS.Scale
	if pinch <= 0 {
		pinch = 1
	}
	return Viewport{X: m.CSS.PageX, Y: m.CSS.PageY, Zoom: zoom, Scale: zoom * pinch}, nil
}

// zoom is layout px per CSS px: the visual viewport's width (or height)
// in the one against the other; 0 for a viewport with no size.
func (m layoutMetrics) zoom() float64 {
	if z := ratio(m.Layout.ClientWidth, m.CSS.ClientWidth); z != 0 {
		return z
	}
	return ratio(m.Layout.ClientHeight, m.CSS.ClientHeight)
}

// ratio is a/b for two positive sizes, else 0.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}
