package browser

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/canopy-dev/canopy/settle"
)

// The page's timers (docs/decisions/2026-11-24-page-timers.md). A flush
// proves the page up to date, but not that it is done: a debounced render
// comes on a timer the action set, after the flush. timersJS, in the main
// world of every frame, keeps the due times of the short timers the page
// sets; the flush's round trip asks it, through two events of random
// types, which of them came from the action and when the next is due.
const (
	// timerBound is the longest delay of a timer that a wait follows: a
	// debounced render (Swagger UI's 35 ms, the 100 ms of common debounce
	// and hover-intent defaults) with slack. Longer timers are not
	// waited for, as before.
	timerBound = 150 * time.Millisecond
	// timerDepth is how many timers deep a chain the action started is
	// followed (a timer set in the callback of a timer is one deeper): a
	// debounce that re-arms itself once or twice, not a polling loop.
	timerDepth = 3
	// timerLost is how late a timer may be before the tracker stops
	// waiting for it (a clearTimeout it could not read the id of).
	timerLost = time.Second
)

// timerEvents are the event types of the tracker's question and answer:
// random, so a page can neither listen for them nor fake an answer.
var timerAsk, timerAnswer = randomName(), randomName()

// randomName is a random event type name.
func randomName() string {
	return "x" + rand.Text()
}

// timersJS wraps the main world's setTimeout, setInterval and their clears
// in proxies of the originals, and answers the question event (%[1]q) with
// the answer event (%[2]q), dispatched on the window: the question's detail
// is how many ms ago the action began, the answer's how many ms until the
// next timer the action set fires, -1 when none is pending. A timer is the
// action's when the first timer of its chain (the timer whose callback set
// it, and so on) was set after the action began; timers longer than
// %[3]d ms, or more than %[4]d deep in their chain, are not counted. A
// timer's callback is wrapped to know its chain; everything else goes to
// the originals as it came (this, arguments, string callbacks, return
// values, exceptions). Function.prototype.toString answers for the
// proxies as for the originals. Nothing is added to the global object; the
// state lives in this closure. Run twice in one window, it does nothing
// the second time (the question is answered already).
const timersJS = `(() => {
  'use strict';
  const ask = %[1]q, answer = %[2]q, bound = %[3]d, depthMax = %[4]d, lost = %[5]d;
  const W = window, R = Reflect.apply, P = Proxy, UI = UIEvent, ceil = Math.ceil;
  const ET = EventTarget.prototype, listen = ET.addEventListener, unlisten = ET.removeEventListener, dispatch = ET.dispatchEvent;
  const detailOf = Object.getOwnPropertyDescriptor(UIEvent.prototype, 'detail').get;
  const pnow = Performance.prototype.now, perf = performance, now = () => R(pnow, perf, []);
  let here = false;
  const seen = () => { here = true; };
  R(listen, W, [answer, seen]);
  R(dispatch, W, [new UI(ask, {__proto__: null, detail: -1})]);
  R(unlisten, W, [answer, seen]);
  if (here) return;
  const timers = {__proto__: null}; // id → the record of a timer short enough to wait for
  let cur = null; // the record of the timer whose callback runs
  const wrap = (cb, rec) => function () {
    delete timers[rec.id]; // fired (an interval's first tick only is waited for)
    const prev = cur;
    cur = rec;
    try { return R(cb, this, arguments); } finally { cur = prev; }
  };
  const set = {apply(target, self, args) {
    const cb = args[0];
    if (typeof cb !== 'function') return R(target, self, args);
    const d = args[1], t = typeof d;
    const ms = d == null || t === 'number' || t === 'string' || t === 'boolean' ? +d || 0 : Infinity;
    const at = now();
    const rec = {id: 0, due: at + (ms > 0 ? ms : 0), short: ms <= bound, root: cur ? cur.root : at, depth: cur ? cur.depth + 1 : 0};
    args[0] = wrap(cb, rec);
    const id = R(target, self, args);
    rec.id = id;
    if (rec.short && rec.depth <= depthMax) timers[id] = rec;
    return id;
  }};
  const clear = {apply(target, self, args) {
    const r = R(target, self, args), id = args[0], t = typeof id;
    if (t === 'number' || t === 'string') delete timers[+id];
    return r;
  }};
  const pending = ago => {
    const t = now(), since = t - ago;
    let next = -1;
    for (const id in timers) {
      const rec = timers[id];
      if (rec.due < t - lost) { delete timers[id]; continue; }
      if (rec.root < since) continue;
      const left = rec.due > t ? ceil(rec.due - t) : 0;
      if (next < 0 || left < next) next = left;
    }
    return next;
  };
  R(listen, W, [ask, e => {
    const ago = R(detailOf, e, []);
    R(dispatch, W, [new UI(answer, {__proto__: null, detail: ago < 0 ? -1 : pending(ago)})]);
  }]);
  const FP = Function.prototype, fts = FP.toString;
  const sT = W.setTimeout, cT = W.clearTimeout, sI = W.setInterval, cI = W.clearInterval;
  const xsT = new P(sT, set), xcT = new P(cT, clear), xsI = new P(sI, set), xcI = new P(cI, clear);
  const original = f => f === xsT ? sT : f === xcT ? cT : f === xsI ? sI : f === xcI ? cI : f === xts ? fts : f;
  const xts = new P(fts, {apply(target, self, args) { return R(target, original(self), args); }});
  W.setTimeout = xsT;
  W.clearTimeout = xcT;
  W.setInterval = xsI;
  W.clearInterval = xcI;
  FP.toString = xts;
})()`

// trackTimers installs timersJS in the main world of every document the
// target loads from now on, and in the current ones.
func trackTimers(ctx context.Context, t cdp.Session) error {
	src := fmt.Sprintf(timersJS, timerAsk, timerAnswer, timerBound.Milliseconds(), timerDepth, timerLost.Milliseconds())
	_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: src, RunImmediately: new(true),
	})
	if err != nil {
		return fmt.Errorf("install the timer tracker: %w", err)
	}
	return nil
}

// askTimersJS, in canopy's isolated world, asks the tracker of the window
// and of every frame in it that the world can reach (same-origin ones, at
// any depth) about the action's timers; its argument is how many ms ago the
// action began. It answers {known, next, reached}: whether the window's own
// tracker answered, how many ms until the next of the timers fires (-1
// when none is pending), and how many trackers answered.
var askTimersJS = fmt.Sprintf(`(ago => {
  let next = -1, known = false, reached = 0;
  const visit = (w, top) => {
    let got = false;
    const on = e => { got = true; const d = e.detail; if (d >= 0 && (next < 0 || d < next)) next = d; };
    try {
      w.addEventListener(%[2]q, on);
      try { w.dispatchEvent(new UIEvent(%[1]q, {detail: ago})); } finally { w.removeEventListener(%[2]q, on); }
    } catch (e) {}
    if (got) reached++;
    if (top) known = got;
    let n = 0;
    try { n = w.length; } catch (e) {}
    for (let i = 0; i < n; i++) { try { visit(w[i], false); } catch (e) {} }
  };
  visit(window, true);
  return {known, next, reached};
})`, timerAsk, timerAnswer)

// pendingTimers is a round trip's answer on the action's timers.
type pendingTimers struct {
	known   bool          // the frame's tracker answered
	next    time.Duration // until the next fires; settle.NoTimer when none is pending
	reached int           // how many frames' trackers answered
}

// parsePending reads askTimersJS's answer.
func parsePending(v *runtime.RemoteObject) pendingTimers {
	var a struct {
		Known   bool    `json:"known"`
		Next    float64 `json:"next"`
		Reached int     `json:"reached"`
	}
	if v == nil || json.Unmarshal(v.Value, &a) != nil || !a.Known {
		return pendingTimers{}
	}
	p := pendingTimers{known: true, next: settle.NoTimer, reached: a.Reached}
	if a.Next >= 0 {
		p.next = time.Duration(a.Next * float64(time.Millisecond))
	}
	return p
}

// sooner is p with q's next timer when it comes first.
func (p pendingTimers) sooner(q pendingTimers) pendingTimers {
	if q.known && q.next >= 0 && (p.next < 0 || q.next < p.next) {
		p.next = q.next
	}
	return p
}

// askFrames asks the trackers that the main frame's round trip could not
// reach (frames of another origin in the tab's process: canopy's world in
// the main frame cannot see into them) in canopy's world of each frame,
// and adds their answers to p. Frames in other processes are other
// targets, which the flush does not cover.
func (tw *tabWatch) askFrames(ctx context.Context, t cdp.Session, p pendingTimers, ago time.Duration) pendingTimers {
	worlds := tw.frameWorldIDs()
	if !p.known || p.reached > len(worlds) {
		return p // every frame answered (reached counts the main frame)
	}
	expr := fmt.Sprintf("(%s)(%d)", askTimersJS, ago.Milliseconds())
	answers := make(chan pendingTimers, len(worlds))
	for _, id := range worlds {
		go func() {
			res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, UniqueContextID: id, ReturnByValue: new(true), Silent: new(true)})
			if err != nil || res.ExceptionDetails != nil {
				answers <- pendingTimers{}
				return
			}
			answers <- parsePending(res.Result)
		}()
	}
	for range worlds {
		p = p.sooner(<-answers)
	}
	return p
}

// event is the Flushed event that reports the round trip.
func (p pendingTimers) event() settle.Event {
	ev := settle.Event{Kind: settle.Flushed, Timers: p.known}
	if p.known {
		ev.Due = p.next
	}
	return ev
}

// askFrameTargets asks the trackers in the frames of other processes that
// tab shows (keptframes.go attached them) about the action's timers, in an
// isolated world of each target's root frame, and adds their answers to p.
// A target that does not answer leaves the page's timers unknown, so the
// wait keeps its tail. Their effects reach the wait from their observers
// (frames.go's onFrameEvent).
func (b *Browser) askFrameTargets(ctx context.Context, tab target.ID, p pendingTimers, ago time.Duration) pendingTimers {
	fss := b.frameTargets(tab)
	if !p.known || len(fss) == 0 {
		return p
	}
	expr := fmt.Sprintf(askAfterFrameJS, askTimersJS, ago.Milliseconds())
	answers := make(chan pendingTimers, len(fss))
	for _, ft := range fss {
		go func() {
			answers <- askTarget(ctx, ft, expr)
		}()
	}
	for range fss {
		q := <-answers
		if !q.known {
			p.known = false
		}
		p = p.sooner(q)
	}
	return p
}

// askAfterFrameJS asks askTimersJS (%[1]s, for an action %[2]d ms ago)
// after the frame's next animation frame and a task, as the flush's round
// trip does in the main frame (barrierJS): what the frame's timers and
// animation frames did by then has been reported first.
const askAfterFrameJS = `new Promise(done => {
  const t0 = performance.now();
  let went = false;
  const go = () => { if (!went) { went = true; setTimeout(() => done((%[1]s)(Math.ceil(%[2]d + performance.now() - t0))), 0); } };
  if (document.visibilityState !== 'visible') return go();
  requestAnimationFrame(go);
  setTimeout(go, 50);
})`

// askTarget evaluates expr, an askAfterFrameJS, in an isolated world of an
// out-of-process frame target's root frame.
func askTarget(ctx context.Context, ft frameTarget, expr string) pendingTimers {
	s := chromedpTarget(ft.fs.ctx)
	if s == nil || ft.root == "" {
		return pendingTimers{}
	}
	w, err := cdp.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: ft.root, WorldName: probeWorld})
	if err != nil {
		return pendingTimers{}
	}
	res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: w.ExecutionContextID,
		AwaitPromise: new(true), ReturnByValue: new(true), Silent: new(true)})
	if err != nil || res.ExceptionDetails != nil {
		return pendingTimers{}
	}
	return parsePending(res.Result)
}
