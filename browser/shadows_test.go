package browser

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
	ctx, cancel := context.WithTimeout(b.tabCtx(), 20*time.Second)
	defer cancel()
	tracked, err := chromedp.Run(ctx, chromedp.Evaluate[string](shadowFactsJS))
	if err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := chromedp.NewContext(b.browserCtx) // a tab canopy is not attached to
	defer pcancel()
	pctx, pcancel = context.WithTimeout(pctx, 20*time.Second)
	defer pcancel()
	if _, err := chromedp.Run(pctx, chromedp.Navigate(testSite.URL("/shadow.html"))); err != nil {
		t.Fatal(err)
	}
	pristine, err := chromedp.Run(pctx, chromedp.Evaluate[string](shadowFactsJS))
	if err != nil {
		t.Fatal(err)
	}
	var with, without map[string]any
	if err := json.Unmarshal([]byte(tracked), &with); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(pristine), &without); err != nil {
		t.Fatal(err)
	}
	if len(without) < 10 {
		t.Fatalf("the facts are missing: %s", pristine)
	}
	for k, v := range without {
		if !reflect.DeepEqual(with[k], v) {
			t.Errorf("%s differs with the tracker: %v\nwithout it: %v", k, with[k], v)
		}
	}
}
