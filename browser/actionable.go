package browser

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"

	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// checkJS checks the element at the point of action, in its own document:
// while animations run, it waits (on animation frames, up to 8) for its box
// to stop moving; it says
// whether it is visible, and — when hit is true — whether the element the
// user would hit at its centre is the element itself or inside it, in every
// tree scope from its shadow root up to its document. A covering element is
// described as tag#id.class "text".
const checkJS = `async function(hit) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el || !el.isConnected) return {gone: true};
  const box = () => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
  const frame = () => new Promise(r => requestAnimationFrame(r));
  let a = box();
  // Without CSS animations or transitions running, the box does not move
  // on its own: no need to wait for frames.
  let stable = document.getAnimations().length === 0;
  for (let i = 0; i < 8 && !stable; i++) {
    await frame();
    const b = box();
    stable = b.every((v, k) => Math.abs(v - a[k]) < 1);
    a = b;
  }
  const st = getComputedStyle(el);
  const out = {box: a, stable, hidden: st.visibility !== 'visible' || a[2] < 1 || a[3] < 1};
  if (!hit || out.hidden) return out;
  const x = a[0] + a[2] / 2, y = a[1] + a[3] / 2;
  const within = (n, anc) => { for (; n; n = n.parentNode || n.host) if (n === anc) return true; return false; };
  let scope = el.getRootNode(), expect = el;
  while (scope && scope.elementFromPoint) {
    const h = scope.elementFromPoint(x, y);
    if (h && !within(h, expect) && !within(expect, h.shadowRoot || null)) {
      let d = h.localName;
      if (h.id) d += '#' + h.id;
      for (const c of h.classList) d += '.' + c;
      const label = h.getAttribute('aria-label') || (h.innerText || '').trim().replace(/\s+/g, ' ').slice(0, 60);
      if (label) d += ' ' + JSON.stringify(label);
      out.cover = d;
      out.coverAt = [x, y];
      break;
    }
    if (!scope.host) break;
    expect = scope.host;
    scope = scope.host.getRootNode();
  }
  return out;
}`

type checkResult struct {
	Gone    bool      `json:"gone"`
	Box     []float64 `json:"box"`
	Stable  bool      `json:"stable"`
	Hidden  bool      `json:"hidden"`
	Cover   string    `json:"cover"`
	CoverAt []float64 `json:"coverAt"`
}

// stableWait caps the wait for an element to stop moving; an element that
// keeps moving (a spinner) is acted on where it is then.
const stableWait = time.Second

// point scrolls the node into view, checks that it is visible and, when
// hit, not covered, and returns the point to act at, in the tab's viewport
// CSS pixels. Failures are *session.ActionError values with a reason.
func (b *Browser) point(ctx context.Context, h *handle, hit bool) (x, y float64, err error) {
	if _, err := cdp.Call(ctx, h.t, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: h.id}); err != nil {
		if e := staleOr(err); e != err {
			return 0, 0, e
		}
		return 0, 0, &session.ActionError{Reason: "it is not visible (it has no layout box)"}
	}
	var res checkResult
	cctx, cancel := context.WithTimeout(ctx, stableWait)
	err = h.call(cctx, checkJS, &res, hit)
	cancel()
	switch {
	case err != nil && ctx.Err() == nil && cctx.Err() != nil:
		// Animation frames did not come (a background tab): act anyway.
		b.log.Debug("stability check timed out", "node", h.node.Ref)
	case err != nil:
		return 0, 0, err
	case res.Gone:
		return 0, 0, session.ErrStale
	case res.Hidden:
		return 0, 0, &session.ActionError{Reason: "it is not visible"}
	case res.Cover != "":
		return 0, 0, &session.ActionError{Reason: "it is covered by " + b.coverName(ctx, h, res)}
	}
	quads, err := cdp.Call(ctx, h.t, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: h.id})
	if err != nil {
		return 0, 0, staleOr(err)
	}
	for _, q := range quads.Quads {
		if len(q) == 8 && area(q) >= 1 {
			x, y = (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
			dx, dy, err := b.frameOffset(ctx, h.tid)
			if err != nil {
				return 0, 0, err
			}
			return x + dx, y + dy, nil
		}
	}
	return 0, 0, &session.ActionError{Reason: "it is not visible (zero size)"}
}

func area(q dom.Quad) float64 {
	a := 0.0
	for i := 0; i < 4; i++ {
		j := (i + 1) % 4
		a += q[2*i]*q[2*j+1] - q[2*j]*q[2*i+1]
	}
	if a < 0 {
		a = -a
	}
	return a / 2
}

// coverName names the element that covers a target: its line in the last
// snapshot when it is a node there (or inside one), else its DOM description.
func (b *Browser) coverName(ctx context.Context, h *handle, res checkResult) string {
	if len(res.CoverAt) == 2 && h.tid == b.curTab().id {
		r, err := cdp.Call(ctx, h.t, dom.GetNodeForLocation, dom.GetNodeForLocationParams{
			X: int64(res.CoverAt[0]), Y: int64(res.CoverAt[1]), IncludeUserAgentShadowDOM: new(false),
		})
		if err == nil {
			if n := b.nodeByKey(string(h.tid) + ":" + strconv.FormatInt(int64(r.BackendNodeID), 10)); n != nil {
				return tree.Line(n)
			}
		}
	}
	return res.Cover
}

// nodeByKey finds a node of the last snapshot by its key.
func (b *Browser) nodeByKey(key string) *tree.Node {
	b.mu.Lock()
	root := b.last
	b.mu.Unlock()
	if root == nil {
		return nil
	}
	return tree.Find(root, func(n *tree.Node) bool { return n.Key == key && n.Ref != "" })
}

// frameOffset returns where an out-of-process frame target's viewport sits in
// the tab's viewport: the content boxes of the <iframe> elements that show
// it, added up. It is zero for the tab's own target (same-process frames
// are already in tab coordinates).
func (b *Browser) frameOffset(ctx context.Context, tid target.ID) (float64, float64, error) {
	var dx, dy float64
	for range 16 {
		if cur := b.curTab(); cur != nil && cur.id == tid {
			return dx, dy, nil
		}
		b.mu.Lock()
		fs := b.frames[tid]
		b.mu.Unlock()
		if fs == nil || fs.owner == 0 {
			return 0, 0, fmt.Errorf("%w: its frame is gone", session.ErrStale)
		}
		owner, err := b.sessionOf(fs.ownerTID)
		if err != nil {
			return 0, 0, err
		}
		box, err := cdp.Call(ctx, owner, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: fs.owner})
		if err != nil {
			return 0, 0, staleOr(err)
		}
		if box.Model == nil || len(box.Model.Content) < 2 {
			return 0, 0, &session.ActionError{Reason: "its frame is not visible"}
		}
		dx += box.Model.Content[0]
		dy += box.Model.Content[1]
		tid = fs.ownerTID
	}
	return 0, 0, fmt.Errorf("frames nested too deep")
}

// sessionOf returns canopy's session on the tab or on a frame target.
func (b *Browser) sessionOf(tid target.ID) (cdp.Session, error) {
	if cur := b.curTab(); cur != nil && cur.id == tid {
		return chromedpTarget(b.tabCtx()), nil
	}
	b.mu.Lock()
	fs := b.frames[tid]
	b.mu.Unlock()
	if fs == nil {
		return nil, fmt.Errorf("%w: its frame is gone", session.ErrStale)
	}
	return chromedpTarget(fs.ctx), nil
}

// editable reports whether the node takes typed text, and why not.
const editableJS = `function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return 'it is not an element';
  if (el.isContentEditable) return '';
  const tag = el.localName;
  if (tag === 'textarea') return el.readOnly ? 'it is read-only' : (el.disabled ? 'it is disabled' : '');
  if (tag === 'input') {
    const t = (el.type || 'text').toLowerCase();
    if (['checkbox','radio','button','submit','reset','file','image','hidden','range','color'].includes(t)) return 'it is an input of type ' + t + ', not a text field';
    return el.readOnly ? 'it is read-only' : (el.disabled ? 'it is disabled' : '');
  }
  return 'it is a ' + tag + ', not a text field';
}`

// checkEditable fails with a reason unless the node takes typed text.
func checkEditable(ctx context.Context, h *handle) error {
	var why string
	if err := h.call(ctx, editableJS, &why); err != nil {
		return err
	}
	if why != "" {
		return &session.ActionError{Reason: why}
	}
	return nil
}
