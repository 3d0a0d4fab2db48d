package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// handle is a node of the page that an action works on: the target whose
// renderer holds it and its backend id there.
type handle struct {
	t    *chromedp.Target
	tid  target.ID
	id   cdp.BackendNodeID
	node *tree.Node
}

// handleOf finds the session that holds n from its key (target:backendId).
func (b *Browser) handleOf(ctx context.Context, n *tree.Node) (*handle, error) {
	tid, idStr, ok := strings.Cut(n.Key, ":")
	id, err := strconv.ParseInt(idStr, 10, 64)
	if !ok || err != nil || id == 0 {
		return nil, fmt.Errorf("%s has no DOM node to act on", tree.Line(n))
	}
	h := &handle{tid: target.ID(tid), id: cdp.BackendNodeID(id), node: n}
	if cur := b.curTab(); cur != nil && cur.id == h.tid {
		h.t = chromedp.FromContext(b.tabCtx()).Target
	} else {
		b.mu.Lock()
		fs := b.frames[h.tid]
		b.mu.Unlock()
		if fs == nil {
			return nil, fmt.Errorf("%w: its frame is gone", session.ErrStale)
		}
		h.t = chromedp.FromContext(fs.ctx).Target
	}
	if n.Role == tree.RoleText {
		if err := h.toElement(ctx); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// toElement points a handle on a run of text at the element that holds
// it: a text line is acted on through its element (docs/selectors.md), which takes
// the clicks, focus and scrolling a text node cannot.
func (h *handle) toElement(ctx context.Context) error {
	obj, err := h.object(ctx)
	if err != nil {
		return err
	}
	defer func() { _, _ = cdp.Call(ctx, h.t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj}) }()
	res, err := cdp.Call(ctx, h.t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: `function() { return this.nodeType === Node.ELEMENT_NODE ? this : this.parentElement; }`,
		ObjectID:            obj,
	})
	if err != nil {
		return staleOr(err)
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return fmt.Errorf("%w: its text has no element", session.ErrStale)
	}
	defer func() {
		_, _ = cdp.Call(ctx, h.t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: res.Result.ObjectID})
	}()
	desc, err := cdp.Call(ctx, h.t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
	if err != nil {
		return staleOr(err)
	}
	if desc.Node == nil || desc.Node.BackendNodeID == 0 {
		return fmt.Errorf("%w: its text has no element", session.ErrStale)
	}
	h.id = desc.Node.BackendNodeID
	return nil
}

// object resolves the node to a JavaScript object in its document.
func (h *handle) object(ctx context.Context) (runtime.RemoteObjectID, error) {
	res, err := cdp.Call(ctx, h.t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: h.id})
	if err != nil {
		return "", staleOr(err)
	}
	if res.Object == nil || res.Object.ObjectID == "" {
		return "", session.ErrStale
	}
	return res.Object.ObjectID, nil
}

// call runs fn (a JavaScript function source) with the node as this and
// returns its JSON result decoded into out (which may be nil).
func (h *handle) call(ctx context.Context, fn string, out any, args ...any) error {
	obj, err := h.object(ctx)
	if err != nil {
		return err
	}
	defer func() { _, _ = cdp.Call(ctx, h.t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj}) }()
	var callArgs []*runtime.CallArgument
	for _, a := range args {
		if id, ok := a.(runtime.RemoteObjectID); ok {
			callArgs = append(callArgs, &runtime.CallArgument{ObjectID: id})
			continue
		}
		raw, err := json.Marshal(a)
		if err != nil {
			return err
		}
		callArgs = append(callArgs, &runtime.CallArgument{Value: raw})
	}
	res, err := cdp.Call(ctx, h.t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj, Arguments: callArgs,
		ReturnByValue: new(true), AwaitPromise: new(true),
	})
	if err != nil {
		return staleOr(err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("%s", exceptionText(res.ExceptionDetails))
	}
	if out != nil && res.Result != nil && len(res.Result.Value) > 0 {
		return json.Unmarshal(res.Result.Value, out)
	}
	return nil
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		first, _, _ := strings.Cut(d.Exception.Description, "\n")
		return first
	}
	return d.Text
}

// staleOr turns CDP's "node not found" family into ErrStale.
func staleOr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, s := range []string{"No node with given id", "Could not find node", "Node is detached", "No node found", "Cannot find context", "Node with given id does not belong"} {
		if strings.Contains(msg, s) {
			return fmt.Errorf("%w (%s)", session.ErrStale, msg)
		}
	}
	if errors.Is(err, chromedp.ErrTargetDetached) {
		return fmt.Errorf("%w: its frame went away", session.ErrStale)
	}
	return err
}

// chromedpTarget returns the target of a chromedp context.
func chromedpTarget(ctx context.Context) *chromedp.Target {
	if c := chromedp.FromContext(ctx); c != nil {
		return c.Target
	}
	return nil
}
