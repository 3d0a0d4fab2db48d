package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/canopy-dev/canopy/tree"
)

// Looking nodes up in the part of a page a read on demand left out. An
// action whose target matches nothing in the part read (`click
// role:button name:"Edit User 0500"` on a 1,000-row table read a hundred
// rows deep) asks Chromium for the nodes of that role and name
// (Accessibility.queryAXTree, ~70 ms on 17,000 nodes), reads each one's
// part of the page as an incremental read reads a changed part, and
// splices it into the kept tree. The rest stays unread; the action's
// reply is then an incremental read and diff as on any page.

const (
	// maxReveal bounds the nodes one lookup adds; more call for a whole
	// read (a find over every row).
	maxReveal = 20
	// maxLookups is how many lookups a document gets. An agent that keeps
	// working past the part read (editing row after row) is better served
	// by one whole read, which the tree then keeps: a lookup costs about a
	// fifth of one on a 1,000-row table.
	maxLookups = 2
	// revealTimeout caps the lookup: queryAXTree waits for a rendering
	// frame, which a tab in the background never gets.
	revealTimeout = 2 * time.Second
)

// Reveal looks up the nodes of role named name in what the current tab's
// read on demand left out (session.Revealer).
func (s source) Reveal(ctx context.Context, role, name string) (*tree.Snapshot, bool, error) {
	return s.b.reveal(ctx, role, name)
}

// reveal adds the nodes of role named name, which the kept tree left
// unread, with their parts of the page, to the kept tree. found is false
// when the tab keeps no tree read on demand or no such node is unread.
func (b *Browser) reveal(ctx context.Context, role, name string) (*tree.Snapshot, bool, error) {
	begin := time.Now()
	t := b.curTab()
	k := b.keptTree(t)
	if k == nil || !k.partial() || len(k.frames) != 1 {
		return nil, false, nil
	}
	b.mu.Lock()
	t.lookups++
	spent := t.lookups > maxLookups
	b.mu.Unlock()
	if spent {
		return nil, false, nil // the executor reads the page whole
	}
	main := k.frames[0]
	kept := k.raw.docs[main.id]
	read := make(map[accessibility.NodeID]*accessibility.Node, len(kept))
	var root *accessibility.Node
	for _, n := range kept {
		read[n.NodeID] = n
		if n.ParentID == "" {
			root = n
		}
	}
	if root == nil || root.BackendDOMNodeID == 0 {
		return nil, false, nil
	}
	s := main.session
	qctx, cancel := context.WithTimeout(ctx, revealTimeout)
	res, err := cdp.Call(qctx, s, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{BackendNodeID: root.BackendDOMNodeID, AccessibleName: name, Role: role})
	cancel()
	if err != nil {
		return nil, false, fmt.Errorf("look up %s %q: %w", role, name, err)
	}
	defer func() {
		_, _ = cdp.Call(context.WithoutCancel(ctx), s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: changesGroup})
	}()
	var hits []*accessibility.Node
	for _, h := range res.Nodes {
		if read[h.NodeID] == nil && h.BackendDOMNodeID != 0 {
			hits = append(hits, h)
		}
	}
	if len(hits) > maxReveal {
		return nil, false, nil // more than a lookup adds: the executor reads the page whole
	}
	var regions []*region
	tops := map[cdp.BackendNodeID]bool{}
	for _, h := range hits {
		top, err := unreadTop(ctx, s, h, read)
		if err != nil {
			return nil, false, err
		}
		if top == 0 || tops[top] {
			continue
		}
		tops[top] = true
		r, err := readPart(ctx, s, top)
		if err != nil {
			return nil, false, err
		}
		r.revealed = true
		regions = append(regions, r)
	}
	if len(regions) == 0 {
		return nil, false, nil
	}
	// Nothing changed since k was read: it keeps its counts and probe.
	start := readStart{gen: k.gen, after: k.gen, structural: k.structural, probe: k.probe}
	snap, _, err := b.splicedTree(ctx, t, k, regions, start, begin, k.stale)
	if err != nil {
		return nil, false, err
	}
	return snap, true, nil
}

// unreadTop returns the element of the outermost node on the way down to
// h that the kept tree did not read: the part to read so that h hangs in
// the tree. 0 when no node on the way has an element of its own.
func unreadTop(ctx context.Context, s cdp.Session, h *accessibility.Node, read map[accessibility.NodeID]*accessibility.Node) (cdp.BackendNodeID, error) {
	res, err := cdp.Call(ctx, s, accessibility.GetAXNodeAndAncestors, accessibility.GetAXNodeAndAncestorsParams{BackendNodeID: h.BackendDOMNodeID})
	if err != nil {
		return 0, fmt.Errorf("read the ancestors of a node looked up: %w", err)
	}
	byID := make(map[accessibility.NodeID]*accessibility.Node, len(res.Nodes))
	for _, n := range res.Nodes {
		byID[n.NodeID] = n
	}
	top := cdp.BackendNodeID(0)
	for n := byID[h.NodeID]; n != nil && read[n.NodeID] == nil; n = byID[n.ParentID] {
		if n.BackendDOMNodeID != 0 {
			top = n.BackendDOMNodeID
		}
	}
	return top, nil
}

// readPart reads the part of the page under element id whole, as an
// incremental read reads a changed element (regions.go).
func readPart(ctx context.Context, s cdp.Session, id cdp.BackendNodeID) (*region, error) {
	obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ObjectGroup: changesGroup})
	if err != nil || obj.Object == nil {
		return nil, fmt.Errorf("read a node looked up: %w", wrapCall("DOM.resolveNode", err))
	}
	r, err := readWhole(ctx, s, obj.Object.ObjectID)
	var w errWhole
	if errors.As(err, &w) {
		return nil, fmt.Errorf("read a node looked up: %w", err)
	}
	return r, err
}
