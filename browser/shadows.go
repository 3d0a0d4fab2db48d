package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// Shadow roots (docs/decisions/2026-11-24-kept-shadow-roots-and-frames.md). The
// observer in canopy's isolated world does not see inside shadow roots, and
// cannot reach a closed one at all. shadowsJS, in the main world of every
// document, observes each shadow root the page attaches (attachShadow) and
// each open one the parser made (declarative shadow DOM, looked for once the
// document is parsed), and:
//
//   - dispatches shadowChanged on the root's outermost host when anything
//     in it changes, which the observer hears (a change, and the next
//     incremental read is whole);
//   - answers shadowAsk with two shadowAnswer events: how many elements its
//     connected roots hold, and a hash of their form controls' state and
//     focus, which the probe adds to its own (kept.go).
//
// A tree is kept only when the DOM snapshot counts as many elements inside
// shadow roots as the trackers do (it gives no roots, only the elements in
// them): a root attached before canopy came, or a closed one the parser
// made, leaves the tree unkept as before.
var shadowChanged, shadowAsk, shadowAnswer = randomName(), randomName(), randomName()

// shadowsJS is the main world's shadow root tracker: %[1]q is the change
// event, %[2]q the question, %[3]q the answer. Everything it calls was
// taken from the prototypes before the page ran; nothing is added to the
// global object; attachShadow is a proxy of the original that returns what
// it returns, and Function.prototype.toString answers for it as for the
// original. Run twice in one window, it does nothing the second time.
const shadowsJS = `(() => {
  'use strict';
  const changed = %[1]q, ask = %[2]q, answer = %[3]q;
  const W = window, D = document, R = Reflect.apply, P = Proxy, UI = UIEvent, WR = WeakRef;
  const get = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const ET = EventTarget.prototype, listen = ET.addEventListener, unlisten = ET.removeEventListener, dispatch = ET.dispatchEvent;
  const NP = Node.prototype, rootOf = NP.getRootNode, connected = get(NP, 'isConnected');
  const hostOf = get(ShadowRoot.prototype, 'host'), openRoot = get(Element.prototype, 'shadowRoot');
  const activeOf = get(ShadowRoot.prototype, 'activeElement'), readyOf = get(Document.prototype, 'readyState');
  const qsaF = DocumentFragment.prototype.querySelectorAll, qsaD = Document.prototype.querySelectorAll;
  const tagOf = get(Element.prototype, 'tagName'), typeOf = get(HTMLInputElement.prototype, 'type');
  const iValue = get(HTMLInputElement.prototype, 'value'), iChecked = get(HTMLInputElement.prototype, 'checked');
  const iMixed = get(HTMLInputElement.prototype, 'indeterminate'), tValue = get(HTMLTextAreaElement.prototype, 'value');
  const sIndex = get(HTMLSelectElement.prototype, 'selectedIndex');
  const MO = MutationObserver, observe = MO.prototype.observe, WS = WeakSet, has = WS.prototype.has, add = WS.prototype.add;
  const deref = WR.prototype.deref, push = Array.prototype.push;
  const count = get(NodeList.prototype, 'length'), item = NodeList.prototype.item;
  const each = (list, f) => { for (let i = 0, n = R(count, list, []); i < n; i++) f(R(item, list, [i]), i); };
  let here = false;
  const seen = () => { here = true; };
  R(listen, W, [answer, seen]);
  R(dispatch, W, [new UI(ask, {__proto__: null, detail: 0})]);
  R(unlisten, W, [answer, seen]);
  if (here) return;
  const roots = [], watched = new WS(), opts = {__proto__: null, subtree: true, childList: true, attributes: true, characterData: true};
  // outer is the host in the document that holds root, through nested roots.
  const hostIf = r => { try { return R(hostOf, r, []); } catch (e) { return null; } };
  const outer = root => {
    let h = R(hostOf, root, []);
    for (let x; (x = hostIf(R(rootOf, h, [])));) h = x;
    return h;
  };
  const report = root => { const h = outer(root); if (R(connected, h, [])) R(dispatch, h, [new UI(changed)]); };
  // watch observes a root; a new one (attached, not found) is a change.
  const watch = (root, found) => {
    if (!root || R(has, watched, [root])) return;
    R(add, watched, [root]);
    R(push, roots, [new WR(root)]);
    R(observe, new MO(() => report(root)), [root, opts]);
    if (!found) report(root);
  };
  // The open roots the parser made, and those inside them.
  let walked = false;
  const walk = (node, qsa) => each(R(qsa, node, ['*']), e => { const r = R(openRoot, e, []); if (r) { watch(r, true); walk(r, qsaF); } });
  let h = 0;
  const mix = s => { s = String(s); for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0; h = (h * 31 + 124) | 0; };
  const state = root => {
    each(R(qsaF, root, ['input,textarea,select']), e => {
      const t = R(tagOf, e, []);
      if (t === 'INPUT') { mix(R(typeOf, e, [])); mix(R(iValue, e, [])); mix((R(iChecked, e, []) ? 'c' : '') + (R(iMixed, e, []) ? 'i' : '')); }
      else if (t === 'TEXTAREA') mix(R(tValue, e, []));
      else if (t === 'SELECT') mix(R(sIndex, e, []));
    });
    const a = R(activeOf, root, []);
    let at = -1;
    if (a) each(R(qsaF, root, ['*']), (e, i) => { if (e === a) at = i; });
    mix(at);
  };
  R(listen, W, [ask, () => {
    if (!walked && R(readyOf, D, []) !== 'loading') { walked = true; walk(D, qsaD); }
    let n = 0;
    h = 0;
    for (let i = 0; i < roots.length; i++) {
      const root = R(deref, roots[i], []);
      if (!root) continue;
      if (R(connected, R(hostOf, root, []), [])) { n += R(count, R(qsaF, root, ['*']), []); state(root); }
    }
    R(dispatch, W, [new UI(answer, {__proto__: null, detail: n})]);
    R(dispatch, W, [new UI(answer, {__proto__: null, detail: h})]);
  }]);
  const EP = Element.prototype, attach = EP.attachShadow;
  const xattach = new P(attach, {apply(target, self, args) { const r = R(target, self, args); watch(r); return r; }});
  const FP = Function.prototype, fts = FP.toString;
  const xts = new P(fts, {apply(target, self, args) { return R(target, self === xattach ? attach : self === xts ? fts : self, args); }});
  EP.attachShadow = xattach;
  FP.toString = xts;
})()`

// trackShadows installs shadowsJS in the main world of every document the
// target loads from now on, and in the current ones.
func trackShadows(ctx context.Context, t cdp.Session) error {
	_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: fmt.Sprintf(shadowsJS, shadowChanged, shadowAsk, shadowAnswer), RunImmediately: new(true),
	})
	if err != nil {
		return fmt.Errorf("install the shadow root tracker: %w", err)
	}
	return nil
}

// askShadowsJS is the probe's question to the tracker of a window w: it
// adds its count of elements in shadow roots to shadows and mixes its hash
// into sh, and returns whether a tracker answered (%[1]q the question,
// %[2]q the answer).
const askShadowsJS = `(w => {
    const got = [];
    const on = e => got.push(e.detail);
    w.addEventListener(%[2]q, on);
    try { w.dispatchEvent(new UIEvent(%[1]q, {detail: 0})); } finally { w.removeEventListener(%[2]q, on); }
    if (got.length !== 2) return false;
    shadows += got[0];
    sh = (sh * 31 + got[1]) | 0;
    return true;
  })`
