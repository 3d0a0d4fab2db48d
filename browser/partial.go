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

// Large pages. Accessibility.getFullAXTree costs about 0.15 ms per AX node
// once a page is big (a 100k-element page returns 380k nodes in ~60 s), so a
// budgeted snapshot of a large document reads its tree on demand instead:
// root first, then children level by level, only the first partialPerParent
// children of any node, until partialMaxNodes nodes or partialMaxTime.
// What is not read is counted (Node.Unread) and printed as an elision.
const (
	largeDocElements = 20000   // Options.OnDemandElements's default
	largeDocText     = 1 << 20 // characters
	partialPerParent = 60
	partialMaxNodes  = 30000
	partialMaxTime   = 8 * time.Second
	partialGrace     = 2 * time.Second
	partialInFlight  = 16
)

// docSize is a cheap guess at the cost of reading a document's trees.
// Elements drive the AX tree's size; text drives layout, whose inline text
// boxes make both the full AX tree and the DOM snapshot slow (a 50 MB text
// node: 13 s for getFullAXTree, minutes for captureSnapshot).
type docSize struct {
	Elements int `json:"elements"`
	Text     int `json:"text"`
}

// large reports whether the document is read on demand: more elements
// than limit, or megabytes of text.
func (d docSize) large(limit int) bool { return d.Elements > limit || d.Text > largeDocText }

// String says what makes the document large, for the snapshot's note.
func (d docSize) String() string {
	if d.Text > largeDocText {
		return fmt.Sprintf("%d elements, %.1f MB of text", d.Elements, float64(d.Text)/(1<<20))
	}
	return fmt.Sprintf("%d elements", d.Elements)
}

// measureDoc asks the frame's document how big it is. textContent builds
// one string of the document's text in the page, about 1 ms per MB.
func measureDoc(ctx context.Context, s *chromedp.Target) (docSize, error) {
	var d docSize
	res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "({elements: document.getElementsByTagName('*').length, " +
			"text: document.documentElement ? document.documentElement.textContent.length : 0})",
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

// partialTree is an AX tree read on demand.
type partialTree struct {
	nodes  []*accessibility.Node
	unread map[accessibility.NodeID]int // children left unread, by parent
	capped bool                         // the node or time cap stopped the read
}

// readPartial reads a frame's AX tree on demand (see the constants above).
// Each level's getChildAXNodes calls are all in flight at once.
func readPartial(ctx context.Context, s *chromedp.Target, frame cdp.FrameID) (*partialTree, error) {
	if _, err := cdp.Call(ctx, s, accessibility.Enable, cdp.Empty{}); err != nil {
		return nil, fmt.Errorf("enable accessibility: %w", err)
	}
	root, err := cdp.Call(ctx, s, accessibility.GetRootAXNode, accessibility.GetRootAXNodeParams{FrameID: frame})
	if err != nil || root.Node == nil {
		return nil, fmt.Errorf("read the root accessibility node: %w", err)
	}
	deadline := time.Now().Add(partialMaxTime)
	// A call in flight at the deadline gets a little longer, then is given
	// up: what it would have returned is counted as unread. One call can be
	// slow on its own (each returns its nodes' names in full: seconds for a
	// page of megabytes of text still loading).
	lctx, cancel := context.WithDeadline(ctx, deadline.Add(partialGrace))
	defer cancel()
	byID := map[accessibility.NodeID]*accessibility.Node{root.Node.NodeID: root.Node}
	p := &partialTree{unread: map[accessibility.NodeID]int{}}
	order := []*accessibility.Node{root.Node}
	level := []*accessibility.Node{root.Node}
	var mu sync.Mutex
	for len(level) > 0 {
		if len(byID) >= partialMaxNodes || time.Now().After(deadline) {
			p.capped = true
			break
		}
		var next []*accessibility.Node
		sem := make(chan struct{}, partialInFlight)
		var wg sync.WaitGroup
		// Which nodes to ask about is decided before any call of the
		// level runs: the calls write byID.
		var ask []*accessibility.Node
		for _, n := range level {
			if needsChildren(n, byID) {
				ask = append(ask, n)
			}
		}
		for _, n := range ask {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				res, err := cdp.Call(lctx, s, accessibility.GetChildAXNodes, accessibility.GetChildAXNodesParams{ID: n.NodeID, FrameID: frame})
				if err != nil {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, c := range res.Nodes {
					if _, ok := byID[c.NodeID]; !ok {
						byID[c.NodeID] = c
						order = append(order, c)
					}
				}
			})
		}
		wg.Wait()
		// The next level: the first children of each node just expanded.
		for _, n := range level {
			kids := n.ChildIDs
			if len(kids) > partialPerParent {
				p.unread[n.NodeID] = len(kids) - partialPerParent
				kids = kids[:partialPerParent]
				n.ChildIDs = kids
			}
			for _, id := range kids {
				if c := byID[id]; c != nil {
					next = append(next, c)
				}
			}
		}
		level = next
	}
	// Nodes whose children were never asked for: count them as unread.
	for _, n := range order {
		if isText(n) {
			continue // inline text boxes are not shown
		}
		missing := 0
		for _, id := range n.ChildIDs {
			if byID[id] == nil {
				missing++
			}
		}
		if missing > 0 {
			p.unread[n.NodeID] += missing
		}
	}
	p.nodes = order
	return p, nil
}
