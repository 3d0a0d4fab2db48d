package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/canopy-dev/canopy/tree"
)

// maxMarks caps the ref labels drawn on one screenshot.
const maxMarks = 400

// mark is one ref label: the node's border box in viewport CSS px.
type mark struct {
	Ref        string
	X, Y, W, H float64
}

// markJS draws the marks in a closed shadow root on a fixed, aria-hidden,
// click-through layer above the page, and returns nothing. The layer is
// removed right after the screenshot by unmarkJS.
const markJS = `(marks) => {
  const host = document.createElement('canopy-marks');
  host.setAttribute('aria-hidden', 'true');
  host.style.cssText = 'all:initial;position:fixed;inset:0;pointer-events:none;z-index:2147483647';
  const root = host.attachShadow({mode: 'closed'});
  for (const [ref, x, y, w, h] of marks) {
    const box = document.createElement('div');
    box.style.cssText = 'position:fixed;box-sizing:border-box;border:2px solid #d6246e;' +
      'left:' + x + 'px;top:' + y + 'px;width:' + w + 'px;height:' + h + 'px';
    const label = document.createElement('span');
    label.textContent = ref;
    label.style.cssText = 'position:absolute;left:-2px;top:' + (y >= 14 ? -15 : 0) + 'px;' +
      'background:#d6246e;color:#fff;font:bold 11px/13px monospace;padding:0 2px';
    box.appendChild(label);
    root.appendChild(box);
  }
  document.documentElement.appendChild(host);
}`

const unmarkJS = `for (const m of document.querySelectorAll('canopy-marks')) m.remove()`

// drawMarks labels the innermost nodes with refs in the last snapshot that
// show in the viewport, for a screenshot an agent can match to the tree. The
// returned function removes the labels.
func (b *Browser) drawMarks(ctx context.Context) (func(), error) {
	b.mu.Lock()
	root := b.last
	b.mu.Unlock()
	if root == nil {
		return nil, fmt.Errorf("screenshot marks: take a snapshot first")
	}
	tab := chromedpTarget(b.tabCtx())
	m, err := cdp.Call(ctx, tab, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, fmt.Errorf("screenshot marks: %w", err)
	}
	vw, vh := float64(m.CSSLayoutViewport.ClientWidth), float64(m.CSSLayoutViewport.ClientHeight)

	nodes := innermostRefs(root)
	boxes := make([]*mark, len(nodes))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, n := range nodes {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			boxes[i] = b.markOf(ctx, n)
		}()
	}
	wg.Wait()

	marks := [][]any{} // JSON [] even with nothing to mark, never null
	for _, mk := range boxes {
		if mk == nil || mk.X+mk.W < 0 || mk.Y+mk.H < 0 || mk.X > vw || mk.Y > vh || mk.W*mk.H == 0 {
			continue
		}
		marks = append(marks, []any{mk.Ref, mk.X, mk.Y, mk.W, mk.H})
		if len(marks) == maxMarks {
			break
		}
	}
	arg, _ := json.Marshal(marks)
	b.refs.Shown(string(arg)) // the agent sees these refs in the picture
	if err := b.run(ctx, "("+markJS+")("+string(arg)+")"); err != nil {
		return nil, fmt.Errorf("screenshot marks: %w", err)
	}
	return func() { _ = b.run(context.WithoutCancel(ctx), unmarkJS) }, nil
}

// innermostRefs lists the nodes with refs that hold no other node with a
// ref: the controls, not the regions around them, whose boxes would cover
// the page with frames.
func innermostRefs(root *tree.Node) []*tree.Node {
	var out []*tree.Node
	var visit func(n *tree.Node) bool // reports whether n's subtree has a ref
	visit = func(n *tree.Node) bool {
		inner := false
		for _, c := range n.Children {
			inner = visit(c) || inner
		}
		if n.Ref != "" && n.Key != "" && !inner {
			out = append(out, n)
		}
		return inner || n.Ref != ""
	}
	visit(root)
	return out
}

// markOf measures one node's border box in tab viewport coordinates; nil
// when it has no box (hidden, gone).
func (b *Browser) markOf(ctx context.Context, n *tree.Node) *mark {
	h, err := b.handleOf(ctx, n)
	if err != nil {
		return nil
	}
	box, err := cdp.Call(ctx, h.t, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: h.id})
	if err != nil || box.Model == nil || len(box.Model.Border) < 8 {
		return nil
	}
	dx, dy, err := b.frameOffset(ctx, h.tid)
	if err != nil {
		return nil
	}
	x, y, w, ht := bounds(box.Model.Border)
	return &mark{Ref: n.Ref, X: x + dx, Y: y + dy, W: w, H: ht}
}

// bounds is the axis-aligned box around a quad (x1 y1 … x4 y4).
func bounds(q dom.Quad) (x, y, w, h float64) {
	minX, minY, maxX, maxY := q[0], q[1], q[0], q[1]
	for i := 0; i+1 < len(q); i += 2 {
		minX, maxX = min(minX, q[i]), max(maxX, q[i])
		minY, maxY = min(minY, q[i+1]), max(maxY, q[i+1])
	}
	return minX, minY, maxX - minX, maxY - minY
}

// run evaluates a script in the tab's main frame for its side effect.
func (b *Browser) run(ctx context.Context, script string) error {
	res, err := cdp.Call(ctx, chromedpTarget(b.tabCtx()), runtime.Evaluate, runtime.EvaluateParams{Expression: script})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("%s", exceptionText(res.ExceptionDetails))
	}
	return nil
}
