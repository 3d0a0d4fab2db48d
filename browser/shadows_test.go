package browser

import (
	"strings"
	"testing"
)

// shadowFactsJS gathers what a page can see of attachShadow and of the
// roots it makes.
const shadowFactsJS = `JSON.stringify({
  text: Element.prototype.attachShadow.toString(),
  name: Element.prototype.attachShadow.name,
  length: Element.prototype.attachShadow.length,
  own: Object.getOwnPropertyNames(Element.prototype.attachShadow).sort().join(),
  toString: Function.prototype.toString.toString(),
  root: (() => { const d = document.createElement('div'); const r = d.attachShadow({mode: 'open'}); return [r instanceof ShadowRoot, d.shadowRoot === r, r.mode, r.host === d]; })(),
  closed: (() => { const d = document.createElement('div'); const r = d.attachShadow({mode: 'closed'}); return [d.shadowRoot, r.mode]; })(),
  noArgument: (() => { try { document.createElement('div').attachShadow(); return 'no error'; } catch (e) { return e.constructor.name + ': ' + e.message; } })(),
  twice: (() => { const d = document.createElement('div'); d.attachShadow({mode: 'open'}); try { d.attachShadow({mode: 'open'}); return 'no error'; } catch (e) { return e.name + ': ' + e.message; } })(),
  notElement: (() => { try { Element.prototype.attachShadow.call({}, {mode: 'open'}); return 'no error'; } catch (e) { return e.constructor.name + ': ' + e.message; } })(),
  globals: Object.getOwnPropertyNames(window).sort().join(),
})`

// TestPageShadowsUnchanged: the shadow root tracker leaves attachShadow
// looking and behaving as without it, errors included, and adds nothing to
// the page's globals.
func TestPageShadowsUnchanged(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/shadow.html")
	if _, without := samePageFacts(t, b, "/shadow.html", shadowFactsJS, nil); strings.Count(without, ":") < 10 {
		t.Errorf("the facts miss what they check: %s", without)
	}
}
