// The speculation guard (preload.go), in canopy's isolated world: every
// <script type="speculationrules"> is taken out of the document before the
// browser reads its rules, so a page cannot make the browser prefetch or
// prerender a URL behind canopy's back (a prefetched response is shown
// without passing the request interception that judges --domains).
//
// The parser inserts a script element, then performs a microtask
// checkpoint before it prepares the element (where the browser reads the
// rules): the observer's callback, a microtask, removes it first. A script
// that inserts one queues the observer's callback before the browser's own
// microtask that sends the rules on, which then finds them gone. Changing a
// script's type, or filling an empty one, is watched too.
(() => {
  if (globalThis.__canopyPreloads) return;
  globalThis.__canopyPreloads = true;
  const rules = (n) => n instanceof HTMLScriptElement &&
    (n.getAttribute('type') || '').trim().toLowerCase() === 'speculationrules';
  const drop = (n) => n.remove();
  const sweep = (n) => {
    if (!(n instanceof Element)) return;
    if (rules(n)) {
      drop(n);
      return;
    }
    for (const s of n.querySelectorAll('script')) {
      if (rules(s)) drop(s);
    }
  };
  new MutationObserver((records) => {
    for (const r of records) {
      // A script whose type or text changed.
      const t = r.type === 'characterData' ? r.target.parentNode : r.target;
      if (t && rules(t)) drop(t);
      for (const n of r.addedNodes) sweep(n);
    }
  }).observe(document, {childList: true, subtree: true, attributes: true, attributeFilter: ['type'], characterData: true});
  sweep(document.documentElement); // a document loaded before canopy came
})()
