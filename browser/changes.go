package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/tree"
)

// Incremental reads. When the page changed since the kept tree was read
// (kept.go), the observer has marked the elements whose part of the tree
// may differ (changesJS). The read re-reads only those parts (regions.go):
// their accessibility nodes, a level at a time with getChildAXNodes
// (queryAXTree waits for a rendering frame, which a tab in the background
// never gets); their ancestors, with getPartialAXTree, for names computed
// from content; and the DOM facts DOMSnapshot.captureSnapshot would give
// for them (factsJS, listeners). It splices them into the kept raw tree
// and converts that as a whole read would. A 1,000-row table re-reads a
// row in a few milliseconds instead of 20,000 nodes in half a second.
//
// Whatever the marks cannot bound falls back to a whole read, and the
// read's Stats.Reread says why.

// changesGroup is the object group of an incremental read's remote
// objects, released when the read is done.
const changesGroup = "canopy-changes"

// errWhole is an incremental read that must be whole instead; its text
// says why (Stats.Reread).
type errWhole string

func (e errWhole) Error() string { return string(e) }

// changed is the page's answer to takeChanges: the elements to re-read
// whole, then those to re-read shallow.
type changed struct {
	whole, shallow []runtime.RemoteObjectID
}

// takeChanges asks the page which elements changed since the last read,
// as remote objects in changesGroup, or why the read must be whole.
func (tw *tabWatch) takeChanges(ctx context.Context, s cdp.Session) (changed, error) {
	var c changed
	p := runtime.EvaluateParams{Expression: takeJS, ObjectGroup: changesGroup, Silent: new(true)}
	if err := tw.inWorld(ctx, s, &p); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return c, err
		}
		return c, errWhole("canopy's world in the page could not be found")
	}
	res, err := cdp.Call(ctx, s, runtime.Evaluate, p)
	tw.worldAnswered(p.UniqueContextID, err)
	if err != nil {
		return c, fmt.Errorf("ask the page what changed: %w", err)
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return c, errWhole("the page could not say what changed")
	}
	if res.Result.Type == runtime.RemoteObjectTypeString {
		var why string
		_ = json.Unmarshal(res.Result.Value, &why)
		return c, errWhole(why)
	}
	if res.Result.ObjectID == "" {
		return c, errWhole("the page could not say what changed")
	}
	props, err := cdp.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: new(true)})
	if err != nil {
		return c, fmt.Errorf("read what changed: %w", err)
	}
	all := map[int]runtime.RemoteObjectID{}
	whole := -1
	for _, p := range props.Result {
		switch i, err := strconv.Atoi(p.Name); {
		case err == nil && p.Value != nil && p.Value.ObjectID != "":
			all[i] = p.Value.ObjectID
		case p.Name == "whole" && p.Value != nil:
			_ = json.Unmarshal(p.Value.Value, &whole)
		}
	}
	if whole < 0 || whole > len(all) {
		return c, errWhole("the page's answer of what changed was malformed")
	}
	for i := range len(all) {
		obj, ok := all[i]
		if !ok {
			return c, errWhole("the page's answer of what changed was malformed")
		}
		if i < whole {
			c.whole = append(c.whole, obj)
		} else {
			c.shallow = append(c.shallow, obj)
		}
	}
	return c, nil
}

// resetChanges starts the page's marks afresh before a whole read: what
// changes from now on is what the next incremental read re-reads.
func (tw *tabWatch) resetChanges(ctx context.Context, s cdp.Session) {
	ctx, cancel := context.WithTimeout(ctx, worldTimeout)
	defer cancel()
	p := runtime.EvaluateParams{Expression: takeJS + ", 0", Silent: new(true)}
	if tw.inWorld(ctx, s, &p) != nil {
		return
	}
	_, err := cdp.Call(ctx, s, runtime.Evaluate, p)
	tw.worldAnswered(p.UniqueContextID, err)
}

// worldTimeout caps a call in canopy's world. A world whose document went
// into the back-forward cache is frozen there and never answers; the tab
// then forgets it (worldAnswered), and the next call finds the world of
// the document the frame shows now (inWorld).
const worldTimeout = 500 * time.Millisecond

// worldAnswered forgets world when a call in it ran out of time.
func (tw *tabWatch) worldAnswered(world string, err error) {
	if world != "" && errors.Is(err, context.DeadlineExceeded) {
		tw.contextGone(world)
	}
}

// usedFacts keeps the facts of the elements the nodes stand for: those of
// elements removed since the whole read would pile up on a page that keeps
// changing (a chat appending messages) until the next navigation.
func usedFacts(facts map[cdp.BackendNodeID]*domNode, nodes []*accessibility.Node) map[cdp.BackendNodeID]*domNode {
	out := make(map[cdp.BackendNodeID]*domNode, len(nodes))
	for _, n := range nodes {
		if f, ok := facts[n.BackendDOMNodeID]; ok {
			out[n.BackendDOMNodeID] = f
		}
	}
	return out
}

// splice puts the regions into a copy of a frame's kept nodes: each
// region's old subtree goes, its fresh nodes and its ancestors' come in.
// The result is the nodes reachable from the root, or an error when a
// node refers to a child no read returned.
//
// In a frame read on demand (partial), a child the kept nodes listed but
// the read left out stays unread, and a region inside the unread part is
// left out: the part stays unread (outside).
func splice(kept []*accessibility.Node, regions []*region, partial bool) ([]*accessibility.Node, error) {
	byID := make(map[accessibility.NodeID]*accessibility.Node, len(kept))
	for _, n := range kept {
		byID[n.NodeID] = n
	}
	var known map[accessibility.NodeID]bool
	if partial {
		known = listed(kept)
		regions = slices.DeleteFunc(slices.Clone(regions), func(r *region) bool { return outside(r, byID, known) })
	}
	byDOM := map[cdp.BackendNodeID][]accessibility.NodeID{}
	roots := map[cdp.BackendNodeID]bool{}
	for _, r := range regions {
		if !r.shallow {
			roots[r.root] = true
		}
	}
	for _, n := range kept {
		if roots[n.BackendDOMNodeID] {
			byDOM[n.BackendDOMNodeID] = append(byDOM[n.BackendDOMNodeID], n.NodeID)
		}
	}
	was := maps.Clone(byID)
	var drop func(id accessibility.NodeID)
	drop = func(id accessibility.NodeID) {
		n := byID[id]
		if n == nil {
			return
		}
		delete(byID, id)
		for _, c := range n.ChildIDs {
			drop(c)
		}
	}
	// Every old subtree goes before any fresh node comes: a region's
	// relatives may be another region's nodes.
	for _, r := range regions {
		if !r.shallow {
			for _, id := range byDOM[r.root] {
				drop(id)
			}
		}
	}
	for _, r := range regions {
		for _, n := range r.ax {
			byID[n.NodeID] = n
		}
	}
	for _, r := range regions {
		for _, n := range r.rel {
			// Read on demand, a relative the read left out (a sibling)
			// stays out: its children were never listed.
			if !partial || was[n.NodeID] != nil || !known[n.NodeID] {
				byID[n.NodeID] = once(n)
			}
		}
	}
	var root *accessibility.Node
	for _, n := range kept {
		if n.ParentID == "" {
			root = byID[n.NodeID]
			break
		}
	}
	if root == nil {
		return nil, errWhole("the re-read tree has no root")
	}
	out := make([]*accessibility.Node, 0, len(byID))
	parentOf := map[accessibility.NodeID]accessibility.NodeID{}
	var walk func(n *accessibility.Node, parent accessibility.NodeID) error
	walk = func(n *accessibility.Node, parent accessibility.NodeID) error {
		if _, ok := parentOf[n.NodeID]; ok {
			return errWhole("the re-read tree has a node under two parents")
		}
		parentOf[n.NodeID] = parent
		out = append(out, n)
		for _, id := range n.ChildIDs {
			c := byID[id]
			if c == nil {
				if strings.HasPrefix(string(id), "-") || known[id] && !isText(n) {
					continue // an inline text box (renumbered on every read, never shown), or unread
				}
				return errWhole("a node outside the changed parts changed")
			}
			if err := walk(c, n.NodeID); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// listed returns the ids of every child the nodes list, read or not.
func listed(nodes []*accessibility.Node) map[accessibility.NodeID]bool {
	out := map[accessibility.NodeID]bool{}
	for _, n := range nodes {
		for _, id := range n.ChildIDs {
			out[id] = true
		}
	}
	return out
}

// outside reports whether a region re-read in a frame read on demand lies
// in the part the read left out: its top node was not read, and either
// was listed as a child (it was there, unread) or hangs below a node not
// read. A node added since, under a node read, is not outside; nor is a
// part read because it was looked for (reveal.go).
func outside(r *region, read map[accessibility.NodeID]*accessibility.Node, known map[accessibility.NodeID]bool) bool {
	if r.revealed {
		return false
	}
	var top *accessibility.Node
	if r.shallow {
		for _, n := range r.rel {
			if n.BackendDOMNodeID == r.root {
				top = n
				break
			}
		}
	} else if len(r.ax) > 0 {
		top = r.ax[0]
	}
	if top == nil || read[top.NodeID] != nil {
		return false
	}
	if known[top.NodeID] {
		return true
	}
	return read[top.ParentID] == nil
}

// once returns n with each child listed once, where it is listed last.
// Accessibility.getPartialAXTree lists an ancestor's children with the
// child on the path to the node asked for put first, and again in its place.
func once(n *accessibility.Node) *accessibility.Node {
	last := make(map[accessibility.NodeID]int, len(n.ChildIDs))
	for i, id := range n.ChildIDs {
		last[id] = i
	}
	if len(last) == len(n.ChildIDs) {
		return n
	}
	c := *n
	c.ChildIDs = make([]accessibility.NodeID, 0, len(last))
	for i, id := range n.ChildIDs {
		if last[id] == i {
			c.ChildIDs = append(c.ChildIDs, id)
		}
	}
	return &c
}

// enableAX enables the Accessibility domain on the tab once:
// getChildAXNodes answers only then. Chromium then keeps the tree of the
// document between calls, and tells of changes only in nodes asked for.
func (tw *tabWatch) enableAX(ctx context.Context, s cdp.Session) error {
	tw.mu.Lock()
	done := tw.axOn
	tw.mu.Unlock()
	if done {
		return nil
	}
	if _, err := cdp.Call(ctx, s, accessibility.Enable, cdp.Empty{}); err != nil {
		return fmt.Errorf("enable accessibility: %w", err)
	}
	tw.mu.Lock()
	tw.axOn = true
	tw.mu.Unlock()
	return nil
}

// maxRegionCalls bounds the regions re-read at once.
const maxRegionCalls = 8

// update answers a read with the kept tree k and the parts of the page that
// changed since k was read, or returns an errWhole saying why the read
// must be whole. start is this read's probe of the page.
func (b *Browser) update(ctx context.Context, t *tab, s *chromedp.Target, k *keptTree, start readStart) (*tree.Snapshot, Stats, error) {
	begin := time.Now()
	var st Stats
	switch {
	case start.err != nil:
		return nil, st, errWhole("the page could not be probed")
	case len(k.frames) != 1:
		return nil, st, errWhole("the page has frames")
	case start.structural != k.structural:
		return nil, st, errWhole("the page navigated, or its frames changed")
	case start.probe.url != k.probe.url:
		return nil, st, errWhole("the address changed")
	case start.probe.title != k.probe.title:
		return nil, st, errWhole("the title changed")
	case start.probe.size != k.probe.size:
		return nil, st, errWhole("the view was resized or zoomed")
	case start.probe.shadowState != k.probe.shadowState:
		return nil, st, errWhole("a control or the focus in a shadow root changed")
	}
	defer func() {
		_, _ = cdp.Call(context.WithoutCancel(ctx), s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: changesGroup})
	}()
	tctx, cancel := context.WithTimeout(ctx, worldTimeout)
	c, err := t.watch.takeChanges(tctx, s)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, st, errWhole("canopy's world in the page did not answer")
		}
		return nil, st, err
	}
	if err := t.watch.enableAX(ctx, s); err != nil {
		return nil, st, err
	}
	// Chromium brings its accessibility tree up to date with the DOM at
	// its next rendering frame, or when a whole read asks; getChildAXNodes
	// does not ask. A read of the root alone does.
	if _, err := cdp.Call(ctx, s, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{Depth: new(int64(0))}); err != nil {
		return nil, st, fmt.Errorf("bring the accessibility tree up to date: %w", err)
	}
	n := len(c.whole) + len(c.shallow)
	regions := make([]*region, n)
	errs := make([]error, n)
	sem := make(chan struct{}, maxRegionCalls)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if i < len(c.whole) {
				regions[i], errs[i] = readWhole(ctx, s, c.whole[i])
			} else {
				regions[i], errs[i] = readShallow(ctx, s, c.shallow[i-len(c.whole)])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		var w errWhole
		if !errors.As(err, &w) {
			t.watch.mu.Lock()
			t.watch.axOn = false // enabled again next time: the renderer may be another
			t.watch.mu.Unlock()
		}
		return nil, st, err
	}
	if t.watch.changes.structural.Load() != k.structural {
		return nil, st, errWhole("the page navigated, or its frames changed")
	}
	// Any change may move boxes outside the parts re-read, even where a
	// part's own box stays (flex and grid siblings, table columns), and
	// an action with no mutation at all may start a transition.
	return b.splicedTree(ctx, t, k, regions, start, begin, true)
}

// splicedTree answers a read with the kept tree k and the regions re-read
// spliced into it, and keeps the result as read at start. stale says boxes
// outside the regions may have moved since k's whole read.
func (b *Browser) splicedTree(ctx context.Context, t *tab, k *keptTree, regions []*region, start readStart, begin time.Time, stale bool) (*tree.Snapshot, Stats, error) {
	var st Stats
	main := k.frames[0]
	unread, partial := k.raw.partial[main.id]
	nodes, err := splice(k.raw.docs[main.id], regions, partial)
	if err != nil {
		return nil, st, err
	}
	old := k.raw.dom[main.target]
	facts := &domFacts{nodes: maps.Clone(old.nodes), docs: old.docs}
	for _, r := range regions {
		maps.Copy(facts.nodes, r.facts)
	}
	if len(facts.nodes) > 2*len(nodes) {
		facts.nodes = usedFacts(facts.nodes, nodes)
	}
	raw := &fetched{
		docs: map[cdp.FrameID][]*accessibility.Node{main.id: nodes}, errs: map[cdp.FrameID]error{},
		owners: map[cdp.FrameID]cdp.BackendNodeID{}, dom: map[target.ID]*domFacts{main.target: facts},
		partial: map[cdp.FrameID]map[accessibility.NodeID]*accessibility.Node{},
	}
	if partial {
		raw.partial[main.id] = unread
	}
	st.CDPTime = time.Since(begin)
	b.log.Debug("incremental read", "regions", len(regions), "cdp", st.CDPTime)
	snap := b.assemble(k.frames, raw, &st)
	snap.Header.Page = b.pageMeta(ctx, main, snap.Root.Key)
	st.Frames, st.Targets = 1, 1
	st.Nodes = tree.Count(snap.Root)
	st.Regions = len(regions)
	st.Stale = stale
	st.WallTime = time.Since(begin)
	b.mu.Lock()
	b.last = snap.Root
	b.stats = st
	b.mu.Unlock()
	b.keep(t, start, k.others, snap, st, k.frames, raw, stale)
	return snap, st, nil
}
