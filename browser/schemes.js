// The link watch (schemes.go), in canopy's isolated world: links and forms
// to external schemes (mailto:, tel:, an app's own) are stopped before the
// browser hands them to another application, and reported through the
// binding as `scheme:URL` (headless: Chromium would ask in a dialog no one
// sees) or `scheme:!URL` (--domains refuses the scheme).
//
// Arguments: browser lists the schemes the browser loads itself; handed
// those it hands over without asking or never hands (a headless browser
// lets them through); allowed the external schemes --domains allows, or
// null when no list judges them; headless whether to stop the others;
// report the binding's function.
((browser, handed, allowed, headless, report) => {
  if (globalThis.__canopySchemes) return;
  globalThis.__canopySchemes = true;
  browser = new Set(browser);
  handed = new Set(handed);
  allowed = allowed === null ? null : new Set(allowed);
  const schemeOf = (u) => {
    if (typeof u !== 'string') return '';
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(u);
    if (!m || m[1].length < 2) return ''; // none, or a Windows drive letter
    const s = m[1].toLowerCase();
    return browser.has(s) ? '' : s;
  };
  const send = (payload) => {
    try { globalThis[report](payload); } catch (x) {}
  };
  const refused = (u) => {
    const s = schemeOf(u);
    return s !== '' && allowed !== null && !allowed.has(s);
  };
  const asked = (u) => {
    const s = schemeOf(u);
    return s !== '' && headless && !handed.has(s);
  };
  const linkOf = (e) => {
    for (const el of e.composedPath()) {
      if (!(el instanceof Element) || (el.localName !== 'a' && el.localName !== 'area')) continue;
      if (typeof el.href === 'string' && el.href) return el.href;
      if (el.href instanceof SVGAnimatedString && el.href.baseVal) {
        // An SVG link: its href is relative to the document.
        try { return new URL(el.href.baseVal, document.baseURI).href; } catch (x) { return ''; }
      }
    }
    return '';
  };
  const formURL = (e) => {
    if (!(e.target instanceof HTMLFormElement)) return '';
    const by = e.submitter;
    return (by && by.hasAttribute('formaction')) ? by.formAction : e.target.action;
  };
  // --domains: judged in the capture phase on the window, before any of
  // the page's listeners, so a page cannot keep the event from canopy
  // (stopPropagation) and still have the browser follow the link.
  const judge = (find) => (e) => {
    const u = find(e);
    if (refused(u)) {
      e.preventDefault();
      send('scheme:!' + u);
    }
  };
  addEventListener('click', judge(linkOf), true);
  addEventListener('auxclick', judge(linkOf), true);
  addEventListener('submit', judge(formURL), true);
  // Headless: what Chromium would ask about, unless the page handled the
  // event itself (it prevented the default).
  const ask = (find) => (e) => {
    if (e.defaultPrevented) return;
    const u = find(e);
    if (asked(u)) {
      e.preventDefault();
      send('scheme:' + u);
    }
  };
  addEventListener('click', ask(linkOf));
  addEventListener('submit', ask(formURL));
})
