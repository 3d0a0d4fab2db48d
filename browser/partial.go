package browser

import (
	"context"
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
	largeDocElements = 20000
	partialPerParent = 60
	partialMaxNodes  = 30000
	partialMaxTime   = 8 * time.Second
	partialInFlight  = 16
)

// countElements returns how many elements the frame's document holds, a
// cheap guess at the size of its AX tree.
func countElements(ctx context.Context, s *chromedp.Target) (int, error) {
	res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    "document.getElementsByTagName('*').length",
		ReturnByValue: new(true),
	})
	if err != nil {
		return 0, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return 0, fmt.Errorf("count elements: script failed")
	}
	var n int
	_, err = fmt.Sscan(string(res.Result.Value), &n)
	return n, err
}

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
		for _, n := range level {
			if len(n.ChildIDs) == 0 {
				continue
			}
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
