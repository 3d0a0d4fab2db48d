package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/runtime"

	"github.com/canopy-dev/canopy/tree"
)

// Reading the parts of a page that changed (changes.go): each part's
// elements, DOM facts, listeners and accessibility nodes.

// region is one re-read part: its root element, the accessibility nodes of
// its subtree, of its ancestors, siblings and children, and its elements'
// DOM facts. A shallow region is its root's own node and list of children
// only: ax and facts are empty. A revealed region is a part a read on
// demand had left out, read because an action looked for it (reveal.go).
type region struct {
	root     cdp.BackendNodeID
	shallow  bool
	revealed bool
	ax       []*accessibility.Node
	rel      []*accessibility.Node
	facts    map[cdp.BackendNodeID]*domNode
}

// parentJS is called on an element: its parent element.
const parentJS = `function () { return this.parentElement; }`

// maxClimb is how far up a region whose root has no accessibility node
// (hidden now) moves to an ancestor that has one.
const maxClimb = 4

// readWhole reads a changed subtree whole, from the nearest element at or
// above obj that has an accessibility node.
func readWhole(ctx context.Context, s cdp.Session, obj runtime.RemoteObjectID) (*region, error) {
	for range maxClimb {
		r, err := readRegion(ctx, s, obj)
		if err == nil || !errors.Is(err, errNoAX) {
			return r, err
		}
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: parentJS, ObjectID: obj, ObjectGroup: changesGroup})
		if err != nil || res.Result == nil || res.Result.ObjectID == "" {
			break
		}
		obj = res.Result.ObjectID
	}
	return nil, errWhole("a changed element has no accessibility node")
}

// errNoAX is a region root with no accessibility node of its own.
var errNoAX = errWhole("a changed element has no accessibility node")

// readShallow reads a changed element's own node, its ancestors, siblings
// and children, not its subtree.
func readShallow(ctx context.Context, s cdp.Session, obj runtime.RemoteObjectID) (*region, error) {
	var (
		wg              sync.WaitGroup
		desc            *cdp.Node
		rel             []*accessibility.Node
		errDesc, errRel error
	)
	wg.Go(func() {
		r, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj})
		desc, errDesc = r.Node, err
	})
	wg.Go(func() {
		r, err := cdp.Call(ctx, s, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{ObjectID: obj, FetchRelatives: new(true)})
		rel, errRel = r.Nodes, err
	})
	wg.Wait()
	if err := errors.Join(errDesc, errRel); err != nil {
		return nil, fmt.Errorf("re-read a changed part of the page: %w", err)
	}
	if desc == nil || len(rel) == 0 {
		return nil, errNoAX
	}
	return &region{root: desc.BackendNodeID, shallow: true, rel: rel}, nil
}

// readRegion reads one changed subtree: five calls at once.
func readRegion(ctx context.Context, s cdp.Session, obj runtime.RemoteObjectID) (*region, error) {
	var (
		wg                        sync.WaitGroup
		desc                      *cdp.Node
		facts                     []json.RawMessage
		listeners                 []*domdebugger.EventListener
		rel                       []*accessibility.Node
		errDesc, errFacts, errL   error
		errAX, errRel             error
		ax                        []*accessibility.Node
		depth, pierce, byValue, t = int64(-1), true, true, true
	)
	wg.Go(func() {
		r, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj, Depth: &depth, Pierce: &pierce})
		desc, errDesc = r.Node, wrapCall("DOM.describeNode", err)
	})
	wg.Go(func() {
		r, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: factsJS, ObjectID: obj, ReturnByValue: &byValue, Silent: &t})
		switch {
		case err != nil:
			errFacts = wrapCall("Runtime.callFunctionOn", err)
		case r.ExceptionDetails != nil || r.Result == nil:
			errFacts = errors.New("the facts script failed")
		default:
			errFacts = json.Unmarshal(r.Result.Value, &facts)
		}
	})
	wg.Go(func() {
		r, err := cdp.Call(ctx, s, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{ObjectID: obj, FetchRelatives: &t})
		rel, errRel = r.Nodes, wrapCall("Accessibility.getPartialAXTree", err)
	})
	wg.Wait()
	if err := errors.Join(errDesc, errFacts, errRel); err != nil {
		return nil, fmt.Errorf("re-read a changed part of the page: %w", err)
	}
	if desc == nil {
		return nil, errNoAX
	}
	listeners, errL = pageListeners(ctx, s, desc.BackendNodeID)
	if errL != nil {
		return nil, fmt.Errorf("re-read a changed part of the page: %w", errL)
	}
	var top *accessibility.Node
	for _, n := range rel {
		if n.BackendDOMNodeID == desc.BackendNodeID {
			top = n
			break
		}
	}
	if top == nil {
		return nil, errNoAX
	}
	if ax, errAX = subtree(ctx, s, top); errAX != nil {
		return nil, fmt.Errorf("re-read a changed part of the page: %w", errAX)
	}
	r := &region{root: desc.BackendNodeID, ax: ax, rel: rel}
	var err error
	if r.facts, err = regionFacts(desc, facts, listeners); err != nil {
		return nil, err
	}
	return r, nil
}

// pageListeners lists the event listeners the page added to the element
// and its subtree. The element is resolved in the page's main world, where
// the page's listeners are: asked about an object of canopy's world,
// DOMDebugger reports that world's only, unless it pierces, and piercing
// calls hung the renderer for good in TestGateEveryPath's run of actions.
func pageListeners(ctx context.Context, s cdp.Session, id cdp.BackendNodeID) ([]*domdebugger.EventListener, error) {
	obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ObjectGroup: changesGroup})
	if err != nil || obj.Object == nil {
		return nil, wrapCall("DOM.resolveNode", err)
	}
	r, err := cdp.Call(ctx, s, domdebugger.GetEventListeners, domdebugger.GetEventListenersParams{ObjectID: obj.Object.ObjectID, Depth: new(int64(-1))})
	return r.Listeners, wrapCall("DOMDebugger.getEventListeners", err)
}

// subtree reads the accessibility nodes below top, a level at a time, all
// calls of a level at once. A text's children (inline text boxes) are not
// read: they are never shown.
func subtree(ctx context.Context, s cdp.Session, top *accessibility.Node) ([]*accessibility.Node, error) {
	// getChildAXNodes answers with an ignored child's children too: a node
	// is asked about only while some child of it is not known yet.
	byID := map[accessibility.NodeID]*accessibility.Node{top.NodeID: top}
	out := []*accessibility.Node{top}
	level := []*accessibility.Node{top}
	for len(level) > 0 {
		var (
			mu   sync.Mutex
			next []*accessibility.Node
			errs []error
			wg   sync.WaitGroup
		)
		for _, n := range level {
			if !needsChildren(n, byID) {
				continue
			}
			wg.Go(func() {
				r, err := cdp.Call(ctx, s, accessibility.GetChildAXNodes, accessibility.GetChildAXNodesParams{ID: n.NodeID})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, wrapCall("Accessibility.getChildAXNodes", err))
					return
				}
				next = append(next, r.Nodes...)
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		level = level[:0]
		for _, n := range next {
			if byID[n.NodeID] == nil {
				byID[n.NodeID] = n
				out = append(out, n)
				level = append(level, n)
			}
		}
	}
	return out, nil
}

// regionFacts pairs the elements of a described subtree with factsJS's
// entries, in document order, and adds the listeners' click evidence.
func regionFacts(desc *cdp.Node, raw []json.RawMessage, listeners []*domdebugger.EventListener) (map[cdp.BackendNodeID]*domNode, error) {
	if len(raw) == 0 {
		return nil, errWhole("the facts of a changed part did not come")
	}
	var parentCursor string
	_ = json.Unmarshal(raw[0], &parentCursor)
	entries := raw[1:]
	listens := map[cdp.BackendNodeID]bool{}
	for _, l := range listeners {
		switch l.Type {
		case "click", "mousedown", "mouseup", "DOMActivate":
			listens[l.BackendNodeID] = true
		}
	}
	out := map[cdp.BackendNodeID]*domNode{}
	i := 0
	var walk func(n *cdp.Node, parentCursor string) error
	walk = func(n *cdp.Node, parentCursor string) error {
		if n.NodeType != 1 { // elements only
			return nil
		}
		for _, sr := range n.ShadowRoots {
			if sr.ShadowRootType != cdp.ShadowRootTypeUserAgent { // a control's own insides are no content
				return errWhole("a changed part holds a shadow root")
			}
		}
		if n.ContentDocument != nil || n.FrameID != "" {
			return errWhole("a changed part holds a frame")
		}
		if i >= len(entries) {
			return errWhole("the page changed while it was re-read")
		}
		var f []any
		if err := json.Unmarshal(entries[i], &f); err != nil || len(f) < 4 {
			return errWhole("the facts of a changed part were malformed")
		}
		i++
		dn := &domNode{tag: strings.ToLower(n.NodeName)}
		if tag, _ := f[0].(string); tag != dn.tag {
			return errWhole("the page changed while it was re-read")
		}
		for k := 0; k+1 < len(n.Attributes); k += 2 {
			if wantAttr(n.Attributes[k]) {
				if dn.attrs == nil {
					dn.attrs = map[string]string{}
				}
				dn.attrs[n.Attributes[k]] = n.Attributes[k+1]
			}
		}
		disabled := f[2] == 1.0
		dn.clickable = !disabled && (f[1] == 1.0 || listens[n.BackendNodeID])
		cursor := ""
		if f[3] == 1.0 && len(f) >= 10 {
			x, _ := f[4].(float64)
			y, _ := f[5].(float64)
			w, _ := f[6].(float64)
			h, _ := f[7].(float64)
			dn.bounds = &tree.Rect{X: x, Y: y, W: w, H: h}
			cursor, _ = f[8].(string)
			display, _ := f[9].(string)
			dn.block = blockDisplay(display)
			dn.pointer = cursor == "pointer" && parentCursor != "pointer"
		}
		out[n.BackendNodeID] = dn
		for _, c := range n.Children {
			if err := walk(c, cursor); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(desc, parentCursor); err != nil {
		return nil, err
	}
	if i != len(entries) {
		return nil, errWhole("the page changed while it was re-read")
	}
	return out, nil
}

// wrapCall names the CDP method of a failed call.
func wrapCall(method string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", method, err)
}
