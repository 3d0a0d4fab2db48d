package browser

// The page side of incremental reads (changes.go). The observer marks the
// elements whose accessibility may have changed since the last read; a
// read takes the marks and re-reads only those elements' subtrees.
//
// A change in an element's children marks it shallow: its own node and its
// list of children are re-read, and the children added are marked whole.
// What can change an element's part of the tree without a mutation of the
// element itself is marked too, by what the page's style sheets use:
//   - an attribute can restyle the element's later siblings (`+`, `~`):
//     with such selectors, its parent is marked;
//   - focus and hover move without mutations: the elements whose :focus,
//     :focus-within or :hover changed are marked;
//   - a script sets a control's value or checked state with no event: the
//     controls are compared with their values at the last take;
//   - a label's text names its control, an element named by
//     aria-labelledby or described by aria-describedby names another: the
//     control or the referrer is marked.
//
// What no mark can bound asks for a whole read instead (the take answers
// with why): a style sheet added, removed or edited, `:has()` in the
// style sheets, a change in the document's head, aria-owns, inert, a modal
// dialog shown or hidden (the rest of the page leaves the tree), or a
// change at the body or the root element.

// changesJS runs inside observerJS: mark(records) is called with every
// batch of mutation records, markEvent(e) with input and change events,
// and globalThis.__canopyTake() answers a read (see takeJS).
const changesJS = `
  const dirty = new Set(), shallow = new Set(), sibs = new Set(), vals = new WeakMap();
  let why = '', sheets = null, lastActive = null, hovered = new Set(), lastModal = '';
  const wide = s => { if (!why) why = s; };
  const styleish = n => n.nodeType === 1 && (n.tagName === 'STYLE' || n.tagName === 'LINK' || !!n.querySelector('style,link'));
  const el = n => n && n.nodeType === 1 ? n : n && n.parentElement;
  const inHead = e => !!(e && document.head && document.head.contains(e));
  const markEl = (n, sib) => {
    const e = el(n);
    if (!e) { if (n && n.nodeType === 9) wide('the document changed'); return; }
    if (inHead(e)) { wide('the document head changed'); sheets = null; return; }
    dirty.add(e);
    if (sib) sibs.add(e);
  };
  const mark = recs => {
    for (const r of recs) {
      const t = r.target;
      if (r.type === 'childList') {
        for (const n of [...r.addedNodes, ...r.removedNodes]) if (styleish(n)) { wide('a style sheet changed'); sheets = null; }
        // The parent's own node and its list of children change; of its
        // children only those added are new (take marks them whole).
        const p = el(t);
        if (p && inHead(p)) { wide('the document head changed'); sheets = null; }
        else if (p) { shallow.add(p); for (const n of r.addedNodes) if (n.nodeType === 1) dirty.add(n); }
        else if (t.nodeType === 9) wide('the document changed');
      } else if (r.type === 'attributes') {
        if (t.tagName === 'STYLE' || t.tagName === 'LINK') { wide('a style sheet changed'); sheets = null; }
        if (r.attributeName === 'aria-owns') wide('aria-owns changed');
        if (r.attributeName === 'inert') wide('inert changed');
        markEl(t, r.attributeName !== 'style');
      } else {
        const p = t.parentNode;
        if (p && p.nodeName === 'STYLE') { wide('a style sheet changed'); sheets = null; }
        markEl(t, false);
      }
    }
  };
  const markEvent = e => { const t = e.composedPath ? e.composedPath()[0] : e.target; if (t && t.nodeType === 1) markEl(t, true); };
  // scanSheets says which selectors that reach beyond an element's subtree
  // the page's style sheets use; a sheet it cannot read counts as all.
  const scanSheets = () => {
    const s = {sib: false, has: false, within: false, hover: false, order: false};
    const all = () => { s.sib = s.has = s.within = s.hover = s.order = true; };
    const look = sel => {
      let bare = sel, prev;
      do { prev = bare; bare = bare.replace(/\([^()]*\)|\[[^\[\]]*\]|"[^"]*"|'[^']*'/g, ''); } while (bare !== prev);
      if (/[+~]/.test(bare)) s.sib = true;
      if (sel.includes(':has(')) s.has = true;
      if (sel.includes(':focus-within')) s.within = true;
      if (sel.includes(':hover')) s.hover = true;
      if (/:(nth-|first-|last-|only-|empty)/.test(sel)) s.order = true;
    };
    const walk = rules => {
      for (const r of rules) {
        if (r.selectorText) look(r.selectorText);
        if (r.styleSheet) sheet(r.styleSheet);
        if (r.cssRules) walk(r.cssRules);
      }
    };
    const sheet = sh => { try { walk(sh.cssRules); } catch (e) { all(); } };
    for (const sh of document.styleSheets) sheet(sh);
    for (const sh of document.adoptedStyleSheets || []) sheet(sh);
    return s;
  };
  // A focus or hover change at the body or the root element shows in the
  // document's own node, which every re-read part's ancestors bring fresh.
  const markState = e => { if (e && e !== document.body && e !== document.documentElement) markEl(e, true); };
  const chain = e => { const c = []; for (; e && e.nodeType === 1; e = e.parentElement) c.push(e); return c; };
  const controlState = e => (e.tagName === 'SELECT' ? e.selectedIndex : e.value) + (e.checked ? '\u0001c' : '') + (e.indeterminate ? '\u0001i' : '');
  // take answers a read: the marked elements reduced to the topmost
  // connected ones, or a string saying why the read must be whole; and
  // starts marking afresh.
  const take = () => {
    mark(obs.takeRecords());
    if (!sheets) sheets = scanSheets();
    for (const e of document.querySelectorAll('input,textarea,select')) {
      const v = controlState(e);
      if (vals.has(e) && vals.get(e) !== v) markEl(e, true);
      vals.set(e, v);
    }
    const active = document.activeElement;
    if (active !== lastActive) {
      if (sheets.within) {
        const was = chain(lastActive), is = chain(active);
        for (const e of was) if (!is.includes(e)) markState(e);
        for (const e of is) if (!was.includes(e)) markState(e);
      } else {
        markState(lastActive);
        markState(active);
      }
      lastActive = active;
    }
    // A modal dialog hides the rest of the page from the tree, with no
    // mutation outside the dialog.
    let modal = '';
    for (const e of document.querySelectorAll('dialog, [aria-modal="true"]')) {
      if ((e.localName !== 'dialog' || e.matches(':modal')) && e.getClientRects().length) modal += '|' + (e.id || e.localName);
    }
    if (modal !== lastModal) { wide('a modal dialog opened or closed'); lastModal = modal; }
    const hover = new Set(document.querySelectorAll(':hover'));
    if (sheets.hover) {
      for (const e of hover) if (!hovered.has(e)) markState(e);
      for (const e of hovered) if (!hover.has(e)) markState(e);
    }
    hovered = hover;
    if (sheets.has && dirty.size) wide('the style sheets use :has()');
    if (sheets.sib) for (const e of sibs) if (e.parentElement) dirty.add(e.parentElement);
    // A child added or removed restyles its siblings under selectors of
    // position (:nth-child, :first-child, :empty…) or of siblings.
    if (sheets.order || sheets.sib) { for (const e of shallow) dirty.add(e); shallow.clear(); }
    const labelled = new Map();
    if (dirty.size) {
      for (const r of document.querySelectorAll('[aria-labelledby],[aria-describedby]')) {
        for (const id of ((r.getAttribute('aria-labelledby') || '') + ' ' + (r.getAttribute('aria-describedby') || '')).split(/\s+/)) {
          if (id) { if (!labelled.has(id)) labelled.set(id, []); labelled.get(id).push(r); }
        }
      }
    }
    const seen = new Set();
    for (const d of [...dirty, ...shallow]) {
      for (let a = d; a && !seen.has(a); a = a.parentElement) {
        seen.add(a);
        if (a.tagName === 'LABEL' && a.control) dirty.add(a.control);
        if (a.id && labelled.has(a.id)) for (const r of labelled.get(a.id)) dirty.add(r);
      }
    }
    const under = e => { for (let p = e.parentElement; p; p = p.parentElement) if (dirty.has(p)) return true; return false; };
    const roots = [], shallowRoots = [];
    for (const e of dirty) if (e.isConnected && !under(e)) roots.push(e);
    for (const e of shallow) if (e.isConnected && !dirty.has(e) && !under(e)) shallowRoots.push(e);
    const w = why;
    dirty.clear(); shallow.clear(); sibs.clear(); why = '';
    if (w) return w;
    if (roots.some(e => e === document.documentElement || e === document.body || inHead(e))) return 'the whole document changed';
    if (roots.length + shallowRoots.length > ` + maxRegionsJS + `) return (roots.length + shallowRoots.length) + ' parts of the page changed';
    // A part is re-read a level at a time, a call per element with
    // children: past a tenth of the page, a whole read is quicker.
    const size = roots.reduce((n, e) => n + 1 + e.getElementsByTagName('*').length, 0);
    if (size > 200 && size * 10 > document.getElementsByTagName('*').length) return 'a large part of the page changed';
    // The answer: the elements to re-read whole, then those whose own node
    // and list of children only are re-read; "whole" counts the first.
    const out = [...roots, ...shallowRoots];
    out.whole = roots.length;
    return out;
  };
  globalThis.__canopyTake = take;
`

// maxRegionsJS caps the subtrees one incremental read re-reads: past it, a
// whole read costs less than the calls.
const maxRegionsJS = "40"

// takeJS asks canopy's world of the main frame for the changes since the
// last read (changesJS's take). A page whose observer is not running (it
// loaded before canopy attached, or the world was recreated) answers why.
const takeJS = `globalThis.__canopyTake ? globalThis.__canopyTake() : 'canopy\'s observer is not running in the page'`

// factsJS is called on a region's root element, in canopy's world, and
// lists for it and each element below it, in document order (the order of
// DOM.describeNode's elements), what DOMSnapshot.captureSnapshot would say
// of it: [tag, clickable without listeners (0/1), a disabled control (0/1),
// laid out (0/1), x, y, width, height in the document's coordinates,
// cursor, display]. The first entry is the root's parent's cursor, for
// telling a cursor the root sets from one it inherits. Boxes are in layout
// px, as the DOM snapshot's: CSS px times devicePixelRatio (the device
// scale factor times the browser's zoom, see Viewport), which in canopy's
// world the page cannot overwrite.
const factsJS = `function () {
  const sx = scrollX, sy = scrollY, z = devicePixelRatio || 1, out = [];
  const laid = e => e.getClientRects().length > 0;
  const p = this.parentElement;
  out.push(p && laid(p) ? getComputedStyle(p).cursor : '');
  const link = e => (e.localName === 'a' || e.localName === 'area') && (e.hasAttribute('href') || e.hasAttributeNS('http://www.w3.org/1999/xlink', 'href'));
  const ctl = e => ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'FIELDSET', 'OPTGROUP', 'OPTION'].includes(e.tagName) && e.matches(':disabled');
  const walk = e => {
    const f = [e.localName, (e.isContentEditable || e.tagName === 'INPUT' || link(e)) ? 1 : 0, ctl(e) ? 1 : 0];
    if (laid(e)) {
      const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
      f.push(1, (r.x + sx) * z, (r.y + sy) * z, r.width * z, r.height * z, cs.cursor, cs.display);
    } else {
      f.push(0);
    }
    out.push(f);
    for (const c of e.children) walk(c);
  };
  walk(this);
  return out;
}`
