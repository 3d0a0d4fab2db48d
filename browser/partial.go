package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Pages read on demand. Accessibility.getFullAXTree costs about 0.03 ms per
// AX node on a page of some thousands of elements (a 1,000-row table: half a
// second), and about 0.15 ms once a page is big (a 100k-element page returns
// 380k nodes in ~60 s), while a budgeted snapshot shows a few thousand
// nodes. So a page of more than Options.OnDemandElements elements is read on
// demand: root first, then children level by level, all calls of a level in
// flight; below any node only its first children are read, and the read
// stops at a number of nodes or a time (once it has read partialFloor
// nodes). A child a read node lists but the read left out is unread, and
// printed as an elision.
//
// Up to largeDocElements, the DOM snapshot (click evidence, boxes) is still
// taken whole, and the tree is kept and updated like a whole read's
// (kept.go, changes.go). Above it, the DOM snapshot would cost seconds too:
// it is skipped, the header says so, and the tree is not kept.
const (
	onDemandElements = 2000    // Options.OnDemandElements's default
	largeDocElements = 20000   // above: no DOM snapshot either
	largeDocText     = 1 << 20 // characters
	partialInFlight  = 64
	partialGrace     = 2 * time.Second
	// partialFloor is how many nodes a read on demand reads before its
	// time limit applies: a loaded machine that answers slowly still
	// shows the start of the page (about a screen's worth), not a tree of
	// elisions.
	partialFloor = 400
)

// partialLimits bound a read on demand.
type partialLimits struct {
	perParent int           // children read below any node
	maxNodes  int           // nodes read in all
	maxTime   time.Duration // the read stops at the level running then
}

var (
	// budgetLimits read what a default snapshot can show: at most about a
	// hundred items of a run.
	// Below the first perParent children of a node, a read on demand
	// reads everything, as a whole read would: text is never cut short.
	budgetLimits = partialLimits{perParent: 100, maxNodes: 30000, maxTime: 8 * time.Second}
	// largeLimits read more of a large page, whose DOM snapshot is
	// skipped: its reads are not kept, so a later read starts over.
	largeLimits = partialLimits{perParent: 60, maxNodes: 30000, maxTime: 8 * time.Second}
)

// docSize is a cheap guess at the cost of reading a document's trees.
// Elements drive the AX tree's size; text drives layout, whose inline text
// boxes make both the full AX tree and the DOM snapshot slow (a 50 MB text
// node: 13 s for getFullAXTree, minutes for captureSnapshot).
type docSize struct {
	Elements int `json:"elements"`
	Text     int `json:"text"`
	// Sampled is how many elements a walk that enters only the first
	// budgetLimits.perParent children of any element meets: about what
	// a read on demand reads.
	Sampled int `json:"sampled"`
	// Large says the document is too large for a DOM snapshot: more than
	// largeDocElements elements (Browser.largeAt), or megabytes of text.
	Large bool `json:"-"`
}

// onDemand reports whether the document is read on demand: a large
// document, or one of more elements than limit where a read on demand
// reads at most a third of them. A read on demand costs about three times
// as much per node as a whole read (a call per node with children), so it
// pays only where long runs of siblings (rows, items) are left unread; a
// long article is read whole.
func (d docSize) onDemand(limit int) bool {
	return d.Large || d.Elements > limit && d.Sampled*3 < d.Elements
}

// String says what makes the document large, for the snapshot's note.
func (d docSize) String() string {
	if d.Text > largeDocText {
		return fmt.Sprintf("%d elements, %.1f MB of text", d.Elements, float64(d.Text)/(1<<20))
	}
	return fmt.Sprintf("%d elements", d.Elements)
}

// measureJS measures the document (docSize); %d is the children a read on
// demand enters below any node.
const measureJS = `(() => {
  const de = document.documentElement;
  let sampled = 0;
  const walk = (e, depth) => {
    sampled++;
    let i = 0;
    for (let c = e.firstElementChild; c && i < %d && depth < 512; c = c.nextElementSibling, i++) walk(c, depth + 1);
  };
  if (de) walk(de, 0);
  return {elements: document.getElementsByTagName('*').length, text: de ? de.textContent.length : 0, sampled};
})()`

// measureDoc asks the frame's document how big it is. textContent builds
// one string of the document's text in the page, about 1 ms per MB.
func measureDoc(ctx context.Context, s *chromedp.Target) (docSize, error) {
	var d docSize
	res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    fmt.Sprintf(measureJS, budgetLimits.perParent),
		ReturnByValue: new(true),
	})
	if err != nil {
		return d, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return d, fmt.Errorf("measure the document: script failed")
	}
	return d, json.Unmarshal(res.Result.Value, &d)
}

// needsChildren reports whether n's children are worth a getChildAXNodes
// call: some are not read yet, and they are not a text's inline text boxes
// (canopy drops those; a long text has tens of thousands). Each call that
// returns a node costs its name again: 6 s for a 50 MB text.
func needsChildren(n *accessibility.Node, byID map[accessibility.NodeID]*accessibility.Node) bool {
	if isText(n) {
		return false
	}
	for _, id := range n.ChildIDs {
		if byID[id] == nil {
			return true
		}
	}
	return false
}

// isText reports whether n is a text node, whose children are its inline
// text boxes.
func isText(n *accessibility.Node) bool { return valueString(n.Role) == "StaticText" }

// partialTree is an AX tree read on demand: the nodes read, each with its
// whole list of children, of which those not read are unread.
type partialTree struct {
	nodes []*accessibility.Node
	// unread has the children read as nodes but left out (below a node's
	// first perParent): the elision says what they are ("… 900 more rows
	// not read"), and their keys (tree.Node.UnreadKeys).
	unread map[accessibility.NodeID]*accessibility.Node
	capped bool // the node or time limit stopped the read
}

// readPartial reads a frame's AX tree on demand, within lim. Each level's
// getChildAXNodes calls are all in flight at once.
func readPartial(ctx context.Context, s *chromedp.Target, frame cdp.FrameID, lim partialLimits) (*partialTree, error) {
	if _, err := cdp.Call(ctx, s, accessibility.Enable, cdp.Empty{}); err != nil {
		return nil, fmt.Errorf("enable accessibility: %w", err)
	}
	// The root comes from a whole read cut at depth 0: unlike
	// getRootAXNode and getChildAXNodes, it brings Chromium's tree up to
	// date with the DOM first (otherwise that waits for the next rendering
	// frame: a document just loaded may show no rows yet).
	top, err := cdp.Call(ctx, s, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: frame, Depth: new(int64(0))})
	if err != nil {
		return nil, fmt.Errorf("read the root accessibility node: %w", err)
	}
	var root struct{ Node *accessibility.Node }
	for _, n := range top.Nodes {
		if n.ParentID == "" {
			root.Node = n
			break
		}
	}
	if root.Node == nil {
		return nil, fmt.Errorf("read the root accessibility node: none came")
	}
	deadline := time.Now().Add(lim.maxTime)
	// A call in flight at the deadline gets a little longer, then is given
	// up: what it would have returned is unread. One call can be slow on
	// its own (each returns its nodes' names in full: seconds for a page
	// of megabytes of text still loading).
	lctx, cancel := context.WithDeadline(ctx, deadline.Add(partialGrace))
	defer cancel()
	floor := min(partialFloor, lim.maxNodes)
	// seen holds every node a call returned; read those kept.
	seen := map[accessibility.NodeID]*accessibility.Node{root.Node.NodeID: root.Node}
	read := map[accessibility.NodeID]bool{root.Node.NodeID: true}
	p := &partialTree{unread: map[accessibility.NodeID]*accessibility.Node{}, nodes: []*accessibility.Node{root.Node}}
	level := []*accessibility.Node{root.Node}
	for len(level) > 0 {
		below := len(p.nodes) < floor
		if len(p.nodes) >= lim.maxNodes || !below && time.Now().After(deadline) {
			p.capped = true
			break
		}
		callCtx := lctx
		if below {
			callCtx = ctx // the floor is read whatever the time
		}
		askChildren(callCtx, s, frame, level, seen)
		// The next level: the first children of each node just expanded.
		var next []*accessibility.Node
		for _, n := range level {
			for i, id := range n.ChildIDs {
				c := seen[id]
				switch {
				case c == nil || read[id]:
				case i >= lim.perParent:
					p.unread[id] = c
				default:
					read[id] = true
					p.nodes = append(p.nodes, c)
					next = append(next, c)
				}
			}
		}
		level = next
	}
	return p, nil
}

// askChildren asks for the children of the nodes of a level that have
// some not seen yet, partialInFlight calls at a time, into seen. A call
// that fails leaves its node's children unread.
func askChildren(ctx context.Context, s *chromedp.Target, frame cdp.FrameID, level []*accessibility.Node, seen map[accessibility.NodeID]*accessibility.Node) {
	// Which nodes to ask about is decided before any call of the level
	// runs: the calls write seen.
	var ask []*accessibility.Node
	for _, n := range level {
		if needsChildren(n, seen) {
			ask = append(ask, n)
		}
	}
	var mu sync.Mutex
	sem := make(chan struct{}, partialInFlight)
	var wg sync.WaitGroup
	for _, n := range ask {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := cdp.Call(ctx, s, accessibility.GetChildAXNodes, accessibility.GetChildAXNodesParams{ID: n.NodeID, FrameID: frame})
			if err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range res.Nodes {
				if _, ok := seen[c.NodeID]; !ok {
					seen[c.NodeID] = c
				}
			}
		})
	}
	wg.Wait()
}
