package browser

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/canopy-dev/canopy/tree"
)

// A child frame's document starts at its owner's content box: inside the
// <iframe>'s border and padding. The DOM snapshot places the owner's
// border box in layout px (viewport.go), so the offset from that box to
// the content box must be in layout px too.
//
// The DOM snapshot of the target that holds the owners says most of it at
// no extra call: which element shows each same-process frame (an owner's
// contentDocumentIndex names the frame's document, which carries its frame
// id), its border and padding (computed styles, asked for only of targets
// that hold frames), and each document's viewport. Only what it does not
// say costs calls: the owner of an out-of-process frame (DOM.getFrameOwner),
// and the edges of an owner it has no styles for (DOM.getBoxModel).

// frameSnapshotParams is domSnapshotParams for a target that holds frame
// owners, with each element's border widths and padding: 1 to 4 lengths
// each, as the CSS shorthands give them.
var frameSnapshotParams = domsnapshot.CaptureSnapshotParams{
	ComputedStyles: append(slices.Clone(domSnapshotParams.ComputedStyles), "border-width", "padding"),
}

// The places of border-width and padding in frameSnapshotParams' styles.
const (
	borderStyle  = 2
	paddingStyle = 3
)

// snapshotParams are the DOM snapshot's parameters for a target that holds
// frame owners, or not.
func snapshotParams(holdsFrames bool) domsnapshot.CaptureSnapshotParams {
	if holdsFrames {
		return frameSnapshotParams
	}
	return domSnapshotParams
}

// ownerTargets lists the targets that hold a frame's owner.
func ownerTargets(frames []*frameInfo) map[target.ID]bool {
	holders := map[target.ID]bool{}
	for _, fr := range frames {
		if fr.ownerIn != nil {
			holders[fr.ownerTID] = true
		}
	}
	return holders
}

// frameFacts is what one target's DOM snapshot says about frames.
type frameFacts struct {
	// owners maps each frame whose document the snapshot holds, but for
	// the target's top one, to the element that shows it.
	owners map[cdp.FrameID]cdp.BackendNodeID
	// edges are frame owners' border plus padding (frameSnapshotParams
	// only), CSS px.
	edges map[cdp.BackendNodeID]edges
	// views are the documents' viewports, layout px.
	views map[cdp.FrameID]size
}

// edges are lengths on the four sides of a box.
type edges struct{ top, right, bottom, left float64 }

// size is a viewport's width and height.
type size struct{ w, h float64 }

// noteFrames records what document d of a DOM snapshot says about frames:
// which of its elements show which frame's document, those elements' and
// other <iframe>s' border and padding, and d's own viewport. all holds d's
// elements by index (indexDOM).
func (ff *frameFacts) noteFrames(docs []*domsnapshot.DocumentSnapshot, d *domsnapshot.DocumentSnapshot, all []*domNode, str func(int64) string) {
	if ff.owners == nil {
		ff.owners = map[cdp.FrameID]cdp.BackendNodeID{}
		ff.edges = map[cdp.BackendNodeID]edges{}
		ff.views = map[cdp.FrameID]size{}
	}
	owner := ff.noteOwners(docs, d, str)
	if d.Layout == nil {
		return
	}
	nodes := d.Nodes
	for li, ni := range d.Layout.NodeIndex {
		if int(ni) >= len(nodes.BackendNodeID) || li >= len(d.Layout.Bounds) {
			continue
		}
		if int(ni) < len(nodes.NodeType) && nodes.NodeType[ni] == 9 { // the document
			if r := rect(d.Layout.Bounds[li]); r != nil {
				ff.views[cdp.FrameID(str(int64(d.FrameID)))] = size{r.W, r.H}
			}
			continue
		}
		if li >= len(d.Layout.Styles) || len(d.Layout.Styles[li]) <= paddingStyle {
			continue // not asked for (snapshotParams)
		}
		if !owner[ni] && (int(ni) >= len(all) || all[ni] == nil || all[ni].tag != "iframe" && all[ni].tag != "frame") {
			continue
		}
		st := d.Layout.Styles[li]
		border, ok := parseEdges(str(int64(st[borderStyle])))
		padding, ok2 := parseEdges(str(int64(st[paddingStyle])))
		if ok && ok2 {
			ff.edges[nodes.BackendNodeID[ni]] = edges{
				border.top + padding.top, border.right + padding.right,
				border.bottom + padding.bottom, border.left + padding.left,
			}
		}
	}
}

// noteOwners records which elements of document d show which frame's
// document, and returns their indexes in d.
func (ff *frameFacts) noteOwners(docs []*domsnapshot.DocumentSnapshot, d *domsnapshot.DocumentSnapshot, str func(int64) string) map[int64]bool {
	nodes, owner := d.Nodes, map[int64]bool{}
	c := nodes.ContentDocumentIndex
	if c == nil {
		return owner
	}
	for k, i := range c.Index {
		if k < len(c.Value) && int(c.Value[k]) < len(docs) && int(i) < len(nodes.BackendNodeID) {
			ff.owners[cdp.FrameID(str(int64(docs[c.Value[k]].FrameID)))] = nodes.BackendNodeID[i]
			owner[i] = true
		}
	}
	return owner
}

// parseEdges reads a computed border-width or padding: 1 to 4 lengths in
// px, for top, right, bottom and left as CSS shorthands give them.
func parseEdges(s string) (edges, bool) {
	f := strings.Fields(s)
	if len(f) < 1 || len(f) > 4 {
		return edges{}, false
	}
	v := make([]float64, len(f))
	for i, w := range f {
		n, err := strconv.ParseFloat(strings.TrimSuffix(w, "px"), 64)
		if err != nil || !strings.HasSuffix(w, "px") {
			return edges{}, false
		}
		v[i] = n
	}
	switch len(v) {
	case 1:
		return edges{v[0], v[0], v[0], v[0]}, true
	case 2:
		return edges{v[0], v[1], v[0], v[1]}, true
	case 3:
		return edges{v[0], v[1], v[2], v[1]}, true
	}
	return edges{v[0], v[1], v[2], v[3]}, true
}

// contentOffset converts an owner's left and top edges (CSS px) to layout
// px at the tab's zoom. A CSS zoom or a scaling transform on the owner or
// an ancestor scales it further; that shows when the owner's border box
// less its frame's viewport (both layout px) differs from its edges at the
// tab's zoom by more than the px Chromium rounds a viewport to, and then
// their ratio is the zoom, per axis. box and view may be nil: unknown.
func contentOffset(e edges, box *tree.Rect, view *size, zoom float64) offset {
	kx, ky := zoom, zoom
	if box != nil && view != nil {
		kx = axisZoom(e.left+e.right, box.W-view.w, zoom)
		ky = axisZoom(e.top+e.bottom, box.H-view.h, zoom)
	}
	return offset{e.left * orOne(kx), e.top * orOne(ky)}
}

// axisZoom is the zoom along one axis: css px of edges that take layout px
// of the owner's box.
func axisZoom(css, layout, zoom float64) float64 {
	if css > 0 && layout > 0 && (zoom == 0 || math.Abs(css*zoom-layout) > 1) {
		return layout / css
	}
	return zoom
}

func orOne(z float64) float64 {
	if z <= 0 {
		return 1
	}
	return z
}

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

// ownerAsked says whether fetch asks for a frame's owner while the DOM
// snapshots are taken: the snapshot of the owner's target does not say
// which frame an out-of-process frame's <iframe> shows, and a large page's
// main target has no snapshot.
func ownerAsked(fr, main *frameInfo, large bool) bool {
	return fr.ownerIn != nil && (fr.target != fr.ownerTID || large && fr.ownerTID == main.target)
}

// askOwner records the owner of frame fr, asked for.
func (f *fetched) askOwner(ctx context.Context, log *slog.Logger, fr *frameInfo) {
	if id, ok := frameOwner(ctx, log, fr); ok {
		f.mu.Lock()
		f.owners[fr.id] = id
		f.mu.Unlock()
	}
}

// frameOwner asks the target holding a frame's parent which element shows
// the frame.
func frameOwner(ctx context.Context, log *slog.Logger, fr *frameInfo) (cdp.BackendNodeID, bool) {
	res, err := cdp.Call(ctx, fr.ownerIn, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: fr.id})
	if err != nil {
		log.Debug("frame owner", "frame", fr.id, "err", err)
		return 0, false
	}
	return res.BackendNodeID, true
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

// placeFrames fills f.owners and f.borders for every child frame: from the
// DOM snapshots, and what they do not say (a frame that came after its
// parent's snapshot, an owner without styles, a parent target without a
// snapshot) with DOM calls, at once. f.owners already holds the owners
// asked for while the snapshots were taken. A border is only needed where
// the owner's box is known, from its target's DOM snapshot.
func (b *Browser) placeFrames(ctx context.Context, frames []*frameInfo, f *fetched, zoom float64) {
	var asks []func()
	for _, fr := range frames {
		if fr.ownerIn == nil {
			continue
		}
		d := f.dom[fr.ownerTID]
		id, ok := f.owners[fr.id]
		if !ok && d != nil {
			id, ok = d.frames.owners[fr.id]
		}
		if !ok {
			asks = append(asks, func() { b.askPlace(ctx, fr, f, 0, d != nil, zoom) })
			continue
		}
		f.owners[fr.id] = id
		if d == nil || d.nodes[id] == nil || d.nodes[id].bounds == nil {
			continue // no box to start from
		}
		e, known := d.frames.edges[id]
		if !known {
			asks = append(asks, func() { b.askPlace(ctx, fr, f, id, true, zoom) })
			continue
		}
		var view *size
		if c := f.dom[fr.target]; c != nil {
			if v, ok := c.frames.views[fr.id]; ok {
				view = &v
			}
		}
		f.borders[fr.id] = contentOffset(e, d.nodes[id].bounds, view, zoom)
	}
	var wg sync.WaitGroup
	for _, ask := range asks {
		wg.Go(ask)
	}
	wg.Wait()
}

// askPlace finds a frame's owner with DOM.getFrameOwner unless id is
// known, and with box, where its content starts with DOM.getBoxModel.
func (b *Browser) askPlace(ctx context.Context, fr *frameInfo, f *fetched, id cdp.BackendNodeID, box bool, zoom float64) {
	if id == 0 {
		var ok bool
		if id, ok = frameOwner(ctx, b.log, fr); !ok {
			return
		}
	}
	var o offset
	if box {
		o = boxContent(ctx, fr.ownerIn, id)
	}
	k := orOne(zoom)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.owners[fr.id] = id
	if box {
		f.borders[fr.id] = offset{o.x * k, o.y * k}
	}
}
