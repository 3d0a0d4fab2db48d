package browser

import (
	"context"
	"fmt"
	"strconv"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// mutationBinding is the name of the binding our MutationObserver calls. It
// lives in an isolated world (canopyWorld), so the page cannot see or call it.
const (
	mutationBinding = "canopyMutated"
	canopyWorld     = "canopy"
)

// observerJS reports DOM mutations through the binding, at most once per
// microtask, so a burst of changes is one event. Focus moving is reported
// apart ('f'): it comes with any click, so it does not say that the action
// had its effect (settle.Event.Incidental). It also marks what changed
// for incremental reads (changesJS). It observes a document once it has
// been parsed: until then no tree of it is kept (kept.go).
const observerJS = `(shadowChanged => {
  if (globalThis.__canopyObserver) return;
  let queued = false, focusQueued = false;
  const report = () => { queued = false; try { ` + mutationBinding + `('m'); } catch (e) {} };
  const focusReport = () => { focusQueued = false; try { ` + mutationBinding + `('f'); } catch (e) {} };
  const obs = new MutationObserver(recs => { mark(recs); if (!queued) { queued = true; queueMicrotask(report); } });` + changesJS + `
  // A document still being parsed is new as a whole: observing the
  // parser's every insertion cost a third of os.html's load. The observer
  // starts once the parser is done, and says the document changed.
  const observe = () => obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  const start = () => {
    observe();
    wide('the document was parsed');
    if (!queued) { queued = true; queueMicrotask(report); }
  };
  if (document.readyState === 'loading') document.addEventListener('readystatechange', start, {once: true});
  else observe();
  const input = e => { markEvent(e); if (!queued) { queued = true; queueMicrotask(report); } };
  const focus = () => { if (!focusQueued) { focusQueued = true; queueMicrotask(focusReport); } };
  // window.print(): the preview (a desktop browser's) holds the page until
  // it closes, so say so before it opens. Only the browser's own events
  // count: a page that dispatches a beforeprint of its own prints nothing.
  addEventListener('beforeprint', e => { if (e.isTrusted) try { ` + mutationBinding + `('print'); } catch (e) {} });
  addEventListener('afterprint', e => { if (e.isTrusted) try { ` + mutationBinding + `('printed'); } catch (e) {} });
  document.addEventListener('input', input, true);
  document.addEventListener('change', input, true);
  document.addEventListener('focusin', focus, true);
  // A shadow root's tracker (shadows.go) says something changed inside it.
  addEventListener(shadowChanged, () => { wide('a shadow root changed'); if (!queued) { queued = true; queueMicrotask(report); } }, true);
  // Scrolling and resizing move every box without a mutation ('s'): the
  // kept tree's boxes are stale (kept.go); for settling it is incidental.
  let moveQueued = false;
  const moved = () => { if (!moveQueued) { moveQueued = true; queueMicrotask(() => { moveQueued = false; try { ` + mutationBinding + `('s'); } catch (e) {} }); } };
  document.addEventListener('scroll', moved, {capture: true, passive: true});
  addEventListener('resize', moved);
  globalThis.__canopyObserver = obs;
})`

// observe installs the mutation observer in every document the target
// loads from now on, and in the current ones.
func observe(ctx context.Context, t cdp.Session) error {
	if _, err := cdp.Call(ctx, t, runtime.AddBinding, runtime.AddBindingParams{Name: mutationBinding, ExecutionContextName: canopyWorld}); err != nil {
		return fmt.Errorf("add the mutation binding: %w", err)
	}
	_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: observerJS + "(" + strconv.Quote(shadowChanged) + ")", WorldName: canopyWorld, RunImmediately: new(true),
	})
	if err != nil {
		return fmt.Errorf("install the mutation observer: %w", err)
	}
	return nil
}
