package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image/png"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"

	"github.com/canopy-dev/canopy/session"
)

// screenshot captures the viewport, or one element, as PNG, and places
// the picture in the page's tree (session.Shot), whose boxes are the
// document's layout px: the executor paints over the credentials it
// shows.
func (b *Browser) screenshot(ctx context.Context, h *handle, marks bool) (session.Output, error) {
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	var vp Viewport
	if h != nil {
		if _, _, err := b.point(ctx, h, false); err != nil {
			return session.Output{}, err
		}
		box, err := cdp.Call(ctx, h.t, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: h.id})
		if err != nil {
			return session.Output{}, staleOr(err)
		}
		if box.Model == nil || len(box.Model.Border) < 8 {
			return session.Output{}, &session.ActionError{Reason: "it has no box on the page"}
		}
		dx, dy, err := b.frameOffset(ctx, h.tid)
		if err != nil {
			return session.Output{}, err
		}
		if vp, err = b.Viewport(ctx); err != nil {
			return session.Output{}, err
		}
		x, y, w, ht := bounds(box.Model.Border)
		p.Clip = &page.Viewport{X: x + dx + vp.X, Y: y + dy + vp.Y, Width: w, Height: ht, Scale: 1}
	}
	if marks {
		remove, err := b.drawMarks(ctx)
		if err != nil {
			return session.Output{}, err
		}
		defer remove()
	}
	if h == nil {
		// Where the view is, before and after: a page that scrolls in
		// between leaves the picture unplaced.
		var err error
		if vp, err = b.Viewport(ctx); err != nil {
			vp = Viewport{}
		}
	}
	res, err := cdp.Call(ctx, chromedpTarget(b.tabCtx()), page.CaptureScreenshot, p)
	if err != nil {
		return session.Output{}, fmt.Errorf("screenshot: %w", err)
	}
	img, err := base64.StdEncoding.DecodeString(string(res.Data))
	if err != nil {
		img = []byte(res.Data) // already raw bytes
	}
	out := session.Output{Image: img}
	if h != nil {
		out.Shot = clipShot(img, p.Clip, vp)
	} else if after, err := b.Viewport(ctx); err == nil && after == vp {
		out.Shot = viewShot(vp)
	}
	return out, nil
}

// viewShot places a picture of the visual viewport: its corner is the
// viewport's in the document, and it is in screen px, which are layout px
// times the pinch zoom (see Viewport). Nil for a viewport without a zoom.
func viewShot(vp Viewport) *session.Shot {
	if vp.Zoom <= 0 || vp.Scale <= 0 {
		return nil
	}
	return &session.Shot{X: vp.X * vp.Zoom, Y: vp.Y * vp.Zoom, Scale: vp.Scale / vp.Zoom}
}

// clipShot places a picture of clip, a rectangle of the document in CSS
// px: it spans the picture's width, whatever the device scale made of it.
// Nil when the picture or the viewport says no size.
func clipShot(img []byte, clip *page.Viewport, vp Viewport) *session.Shot {
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil || clip == nil || clip.Width <= 0 || vp.Zoom <= 0 || cfg.Width <= 0 {
		return nil
	}
	return &session.Shot{X: clip.X * vp.Zoom, Y: clip.Y * vp.Zoom, Scale: float64(cfg.Width) / (clip.Width * vp.Zoom)}
}
