package browser

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
)

// A child frame's document starts at its owner's content box: inside the
// <iframe>'s border and padding. The DOM snapshot places the owner's
// border box in layout px (viewport.go), so the offset from that box to
// the content box must be in layout px too.

// layoutZoom reads the tab's layout px per CSS px (device scale factor ×
// browser zoom) in one Page.getLayoutMetrics call, or 0 when it cannot.
func layoutZoom(ctx context.Context, s cdp.Session) float64 {
	cmd := cdp.Command[cdp.Empty, layoutMetrics]{Method: page.CommandGetLayoutMetrics}
	m, err := cdp.Call(ctx, s, cmd, cdp.Empty{})
	if err != nil || m.CSS == nil || m.Layout == nil {
		return 0
	}
	return m.zoom()
}

// boxContent returns where a frame owner's content box starts inside its
// border box (its left and top border and padding), in CSS px as
// DOM.getBoxModel gives them.
func boxContent(ctx context.Context, s cdp.Session, owner cdp.BackendNodeID) offset {
	res, err := cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner})
	if err != nil || res.Model == nil || len(res.Model.Border) < 2 || len(res.Model.Content) < 2 {
		return offset{}
	}
	return offset{res.Model.Content[0] - res.Model.Border[0], res.Model.Content[1] - res.Model.Border[1]}
}
