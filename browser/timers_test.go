package browser

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// TestLaterEffects: an effect that comes after the click, at once or up to
// timerBound later (a microtask, timers, frames, a message, a request, and
// chains of them; in the page or in a frame), is in the reply of a click
// whose wait ended on a flush, and the timers longer than a round trip
// were followed.
func TestLaterEffects(t *testing.T) {
	e := newAct(t, "/later.html")
	// clickFlushed clicks Reset and a button in turns, again when a wait
	// ended on the quiet window: going back and forth that way is what
	// stuck detection refuses.
	e.s = session.New(e.b.Source(), policy.New(action.Act), session.Options{Stuck: session.StuckOff})
	// The effects 80 ms or more later must have been followed as timers:
	// the round trip that finds them pending takes less on any machine.
	// The interval's 40 ms tick may come before a loaded machine's first
	// round trip answers; it must only show.
	timed := map[string]bool{"Debounce 80": true, "Saving": true, "Re-armed debounce": true, "Frame debounce": true}
	for _, name := range []string{
		"At once", "Microtask", "Timer 0", "Timer 5", "Timer 15", "Timer 30", "One frame", "Two frames",
		"Two timers", "Message", "Fetch", "Fetch then timer", "Timer then frame",
		// Longer than the tail of old (40 ms), and the "Saving…" that
		// the tail missed when the rest came more than 40 ms later.
		"Debounce 80", "Saving", "Re-armed debounce", "Interval", "Frame debounce",
	} {
		r := clickFlushed(t, e, name)
		// A machine so loaded that the first round trip outlasts the
		// timer sees the effect come as an event: try twice more.
		for try := 0; try < 2 && timed[name] && r.Settled.Followed == 0; try++ {
			t.Logf("%s: no timer followed, again: %+v", name, r.Settled)
			r = clickFlushed(t, e, name)
		}
		if !strings.Contains(r.Text, `Done: `+name+`"`) {
			t.Errorf("%s: the reply misses the effect: %q %+v", name, r.Text, r.Settled)
		}
		if timed[name] && r.Settled.Followed == 0 {
			t.Errorf("%s: no timer followed: %+v", name, r.Settled)
		}
		t.Logf("%s: settled in %v, %d timers followed", name, r.Settled.Waited.Round(time.Millisecond), r.Settled.Followed)
	}
}

// clickFlushed resets later.html and clicks the button name, again when
// the wait ended on the quiet window rather than a flush: a loaded machine
// can take longer than the window to answer a round trip, and then
// nothing says the effect is in. Three such waits in a row fail the test.
func clickFlushed(t *testing.T, e *actEnv, name string) session.Reply {
	t.Helper()
	var r session.Reply
	for range 3 {
		e.must(`click role:button name:Reset`)
		if r = e.must(`click role:button name:"` + name + `"`); r.Settled.Flushed {
			return r
		}
		t.Logf("%s: settled on the quiet window: %+v", name, r.Settled)
	}
	t.Errorf("%s: settled on the quiet window three times", name)
	return r
}

// TestLaterEffectsCrossOrigin: with site isolation off, a frame of another
// site runs in the page's process, where canopy's world in the top
// document cannot reach its tracker: the flush asks the frame's own world,
// and its debounced render is in the reply.
func TestLaterEffectsCrossOrigin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := New(ctx, Options{Args: []string{"--disable-site-isolation-trials"}})
	if err != nil {
		t.Fatalf("launch browser: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	load(t, b, "/later-cross.html")
	e := &actEnv{t: t, b: b, s: newActSession(b, action.Act)}
	r := clickFlushed(t, e, "Cross debounce")
	if !strings.Contains(r.Text, `Done: Cross debounce"`) || r.Settled.Followed == 0 {
		t.Errorf("the reply misses the frame's debounced render: %q %+v", r.Text, r.Settled)
	}
}

// TestLaterEffectsAcross: a click in a cross-site frame (another process,
// another target) whose effect comes on a timer, now or after 20 or 80 ms,
// or after a timer and an animation frame: the flush asks the frame's own
// tracker, its observer's report reaches the wait, and the reply shows the
// effect.
func TestLaterEffectsAcross(t *testing.T) {
	e := newAct(t, "/cross.html")
	frameJS := crossFrameJS(t, e.b)
	for i, later := range []string{
		`setTimeout(() => show('Across at once'), 0)`,
		`setTimeout(() => show('Across after 20'), 20)`,
		`setTimeout(() => show('Across after 80'), 80)`,
		`setTimeout(() => requestAnimationFrame(() => show('Across after a frame')), 30)`,
	} {
		frameJS(`window.show = s => { document.querySelector('p').textContent = s };
		  document.querySelector('button').onclick = () => { ` + later + ` }; 1`)
		want := later[strings.Index(later, "show('")+6 : strings.LastIndex(later, "')")]
		r := e.must(`click role:button name:"Cross button"`)
		if !strings.Contains(r.Text, `"`+want+`"`) {
			t.Errorf("case %d: the reply misses the frame's later effect %q: %q %+v", i, want, r.Text, r.Settled)
		}
	}
}

// TestTimerBound: a timer longer than timerBound is not waited for.
func TestTimerBound(t *testing.T) {
	e := newAct(t, "/later.html")
	r := e.must(`click role:button name:"Timer 400"`)
	if r.Settled.Followed != 0 || r.Settled.Waited > 300*time.Millisecond {
		t.Errorf("a 400 ms timer was waited for: %+v", r.Settled)
	}
}

// TestTimerLoop: a setTimeout loop of 16 ms that changes nothing (a
// poller) holds the action that started it a few timers at most, and the
// actions after it not at all.
func TestTimerLoop(t *testing.T) {
	e := newAct(t, "/later.html")
	r := e.must(`click role:button name:"Start loop"`)
	if !strings.Contains(r.Text, `Done: Start loop"`) || r.Settled.Followed > timerDepth+1 || r.Settled.Waited > time.Second {
		t.Errorf("starting the loop: %q %+v", r.Text, r.Settled)
	}
	for _, name := range []string{"At once", "Timer 15", "Debounce 80"} {
		r := clickFlushed(t, e, name)
		if !strings.Contains(r.Text, `Done: `+name+`"`) {
			t.Errorf("%s with the loop running: %q %+v", name, r.Text, r.Settled)
		}
		if name == "At once" && (r.Settled.Followed != 0 || r.Settled.Waited > time.Second) {
			t.Errorf("the loop held an action it did not come from: %+v", r.Settled)
		}
	}
}

// timerFactsJS describes the page's timer functions and what they do: how
// they look (name, length, source text, property flags, errors), the
// global object's own properties, and what timers set, cleared, repeated,
// given odd delays, string callbacks or extra arguments do.
const timerFactsJS = `(async () => {
  const facts = {};
  const err = f => { try { f(); return 'no error'; } catch (e) { return e.constructor.name + ': ' + e.message; } };
  for (const n of ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval']) {
    const f = window[n], d = Object.getOwnPropertyDescriptor(window, n);
    facts[n] = [typeof f, f.name, f.length, String(f), Function.prototype.toString.call(f), 'prototype' in f,
      d.writable, d.enumerable, d.configurable, Object.getPrototypeOf(f) === Function.prototype,
      Object.getOwnPropertyNames(f).join(), f === self[n], err(() => new f(() => {})), err(() => f.call({}, () => {}))];
  }
  const ts = Function.prototype.toString, td = Object.getOwnPropertyDescriptor(Function.prototype, 'toString');
  facts.toString = [ts.name, ts.length, ts.call(ts), String(ts), td.writable, td.enumerable, td.configurable,
    err(() => ts.call({})), String(class A {}), (function f(a) { return a; }).toString()];
  facts.globals = Object.getOwnPropertyNames(window).sort().join();
  facts.keys = Object.keys(window).join();
  facts.symbols = Object.getOwnPropertySymbols(window).map(String).join();
  const log = [];
  addEventListener('error', e => { e.preventDefault(); log.push('error ' + e.message + ' ' + (e.error && e.error.tag)); });
  const a = setTimeout(function (x, y) { log.push(['this', this === window, x, y, arguments.length].join()); return 5; }, 0, 'x', 'y');
  const b = setTimeout(() => log.push('cleared timeout ran'), 0);
  clearTimeout(b);
  const c = setTimeout(() => log.push('timeout cleared by clearInterval ran'), 0);
  clearInterval(c);
  facts.ids = [typeof a, a > 0, b - a, c - b];
  let n = 0;
  const i = setInterval(() => { log.push('tick ' + ++n); if (n === 3) clearTimeout(i); }, 1);
  window.strung = 0;
  setTimeout('window.strung++', 0);
  let valueOfs = 0;
  setTimeout(() => log.push('valueOf delay'), {valueOf() { valueOfs++; return 3; }});
  setTimeout(() => log.push('string delay'), '2');
  setTimeout(() => log.push('negative delay'), -5);
  setTimeout(() => log.push('NaN delay'), NaN);
  const order = [];
  setTimeout(() => order.push(10), 10);
  setTimeout(() => order.push(5), 5);
  setTimeout(() => { const e = new Error('boom'); e.tag = 'mine'; throw e; }, 0);
  setTimeout(() => setTimeout(() => log.push('nested'), 0), 0);
  facts.undefinedCallback = err(() => setTimeout(undefined, 0));
  await new Promise(done => setTimeout(done, 60));
  facts.log = log.sort().join('; ');
  facts.order = order.join();
  facts.valueOfs = valueOfs;
  facts.strung = window.strung;
  return JSON.stringify(facts, null, 1);
})()`

// TestPageTimersUnchanged: with the tracker in the page, its timer
// functions look and behave as in a page canopy never touched.
func TestPageTimersUnchanged(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/later.html")
	with, _ := samePageFacts(t, b, "/later.html", timerFactsJS, func() {
		ctx, cancel := context.WithTimeout(b.tabCtx(), 20*time.Second)
		defer cancel()
		if p, err := b.curTab().watch.barrier(ctx, chromedpTarget(b.tabCtx()), flushPayload+"check", time.Minute); err != nil || !p.known {
			t.Fatalf("the tracker did not answer: %+v %v", p, err)
		}
	})
	if !strings.Contains(with, "tick 3") || !strings.Contains(with, "error Uncaught Error: boom mine") {
		t.Errorf("the facts miss what they check:\n%s", with)
	}
}

// samePageFacts evaluates factsJS (awaited, a JSON object) in b's tab,
// where canopy's scripts run, then runs asked (a question to them), then
// loads page in a tab canopy is not attached to and evaluates factsJS
// there: every fact must be the same. It returns both answers.
func samePageFacts(t *testing.T, b *Browser, page, factsJS string, asked func()) (with, without string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.tabCtx(), 20*time.Second)
	defer cancel()
	with, err := chromedp.Run(ctx, chromedp.Evaluate[string](factsJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if asked != nil {
		asked()
	}
	pctx, pcancel := chromedp.NewContext(b.browserCtx) // a tab canopy is not attached to
	defer pcancel()
	pctx, pcancel = context.WithTimeout(pctx, 20*time.Second)
	defer pcancel()
	if _, err := chromedp.Run(pctx, chromedp.Navigate(testSite.URL(page))); err != nil {
		t.Fatal(err)
	}
	without, err = chromedp.Run(pctx, chromedp.Evaluate[string](factsJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var w, wo map[string]any
	if err := json.Unmarshal([]byte(with), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(without), &wo); err != nil {
		t.Fatal(err)
	}
	if len(wo) == 0 {
		t.Fatalf("no facts: %s", without)
	}
	for k, v := range wo {
		if !reflect.DeepEqual(w[k], v) {
			t.Errorf("%s differs with canopy's scripts: %v\nwithout them: %v", k, w[k], v)
		}
	}
	return with, without
}
