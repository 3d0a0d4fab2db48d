package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/canopy-dev/canopy/settle"
)

// barrierJS is the round trip of a flush, run in canopy's isolated world
// of the tab's main frame, %q being its token. It marks its start among
// the page's events (a binding call), then waits for the next animation
// frame (the page's requestAnimationFrame callbacks run in it) and a task
// after it (queued behind the page's timers of 0 ms and the tasks the
// action queued). A hidden page gets no frames: the task alone; frames
// that do not come within 50 ms are not waited for. chromedp hands the
// tab's events to the listener in the order the page sent them, so by its
// answer every event the page sent before it has been seen. Its answer is
// the page's timers (askTimersJS; %d is how many ms ago the action began).
var barrierJS = `new Promise(done => {
  try { ` + mutationBinding + `(%q); } catch (e) {}
  const t0 = performance.now(), ago = %d;
  let went = false;
  const timers = () => (` + askTimersJS + `)(Math.ceil(ago + performance.now() - t0));
  const go = () => { if (!went) { went = true; setTimeout(() => done(timers()), 0); } };
  if (document.visibilityState !== 'visible') return go();
  requestAnimationFrame(go);
  setTimeout(go, 50);
})`

// flushPayload starts the binding call that marks a round trip's start.
const flushPayload = "flush:"

// Flush asks the current tab for round trips (settle.WaitFlushed) until
// one of them saw the page send nothing between its start and its answer,
// and reports settle.Flushed then, with the timers the action set that
// are still pending (timers.go). A failed round trip (the page navigated,
// or did not answer before the watch stopped) reports settle.FlushFailed.
func (w watcher) Flush() {
	cur := w.b.curTab()
	t := chromedpTarget(w.b.tabCtx())
	if cur == nil || cur.watch == nil || t == nil {
		w.w.send(settle.Event{Kind: settle.FlushFailed})
		return
	}
	go func() {
		for w.w.ctx.Err() == nil {
			token := w.w.flushStart()
			pending, err := cur.watch.barrier(w.w.ctx, t, token, time.Since(w.w.start))
			if err != nil {
				w.b.log.Debug("settle: flush", "err", err)
				w.w.send(settle.Event{Kind: settle.FlushFailed})
				return
			}
			if w.w.flushClean(token) {
				pending = cur.watch.askFrames(w.w.ctx, t, pending, time.Since(w.w.start))
				pending = w.b.askFrameTargets(w.w.ctx, cur.id, pending, time.Since(w.w.start))
				w.w.send(pending.event())
				return
			}
		}
	}()
}

// barrier runs barrierJS in canopy's world of the tab's main frame, for
// an action that began ago, and returns the page's answer on its timers.
func (tw *tabWatch) barrier(ctx context.Context, t cdp.Session, token string, ago time.Duration) (pendingTimers, error) {
	p := runtime.EvaluateParams{
		Expression:   fmt.Sprintf(barrierJS, token, ago.Milliseconds()),
		AwaitPromise: new(true), ReturnByValue: new(true), Silent: new(true),
	}
	if err := tw.inWorld(ctx, t, &p); err != nil {
		return pendingTimers{}, err
	}
	res, err := cdp.Call(ctx, t, runtime.Evaluate, p)
	if err != nil {
		return pendingTimers{}, fmt.Errorf("round trip: %w", err)
	}
	if res.ExceptionDetails != nil {
		return pendingTimers{}, fmt.Errorf("round trip: %s", res.ExceptionDetails.Text)
	}
	return parsePending(res.Result), nil
}

// flushStart begins a round trip: its token, and the count of events so
// far, which stands for its start until its mark arrives. Round trips may
// overlap (a wait step settles more than once on one watch): each keeps
// its own count.
func (w *watch) flushStart() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushes++
	token := flushPayload + strconv.Itoa(w.flushes)
	if w.flushAt == nil {
		w.flushAt = map[string]int{}
	}
	w.flushAt[token] = w.sent
	return token
}

// flushMarked notes that the page began the round trip token: what it
// sent before belongs to the action, not to the round trip.
func (w *watch) flushMarked(token string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.flushAt[token]; ok {
		w.flushAt[token] = w.sent
	}
}

// flushClean reports whether the page sent nothing during round trip
// token: it is quiet, not merely up to date.
func (w *watch) flushClean(token string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	at, ok := w.flushAt[token]
	delete(w.flushAt, token)
	return ok && w.sent == at
}

// contextCreated notes the execution contexts of canopy's world: the
// main frame's, for the flushes' round trips, and the other frames' in the
// tab's process, to ask about their timers (askFrames).
func (tw *tabWatch) contextCreated(e *runtime.EventExecutionContextCreated) {
	c := e.Context
	if c == nil || c.Name != canopyWorld {
		return
	}
	var aux struct {
		FrameID string `json:"frameId"`
	}
	if json.Unmarshal(c.AuxData, &aux) != nil {
		return
	}
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if aux.FrameID == string(tw.id) {
		tw.world = c.UniqueID
		return
	}
	if tw.frameWorlds == nil {
		tw.frameWorlds = map[string]bool{}
	}
	tw.frameWorlds[c.UniqueID] = true
}

// contextGone forgets canopy's world when its context goes (id "" is
// every context: Runtime.executionContextsCleared).
func (tw *tabWatch) contextGone(id string) {
	tw.mu.Lock()
	if id == "" || id == tw.world {
		tw.world = ""
	}
	if id == "" {
		clear(tw.frameWorlds)
	}
	delete(tw.frameWorlds, id)
	tw.mu.Unlock()
}

// frameWorldIDs are the unique ids of canopy's world in the tab's frames
// in its process, the main frame apart.
func (tw *tabWatch) frameWorldIDs() []string {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return slices.Collect(maps.Keys(tw.frameWorlds))
}

// inWorld makes p run in canopy's world of the tab's main frame: the
// context announced for it, or, when none is known (not announced yet, or
// forgotten after a call in it ran out of time on a busy machine), the one
// Page.createIsolatedWorld finds. Chromium keeps one world per name and
// frame, so that is the world the observer runs in, of the document the
// frame shows now.
func (tw *tabWatch) inWorld(ctx context.Context, t cdp.Session, p *runtime.EvaluateParams) error {
	if p.UniqueContextID = tw.worldID(); p.UniqueContextID != "" {
		return nil
	}
	w, err := cdp.Call(ctx, t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: cdp.FrameID(tw.id), WorldName: canopyWorld})
	if err != nil {
		return fmt.Errorf("canopy's world: %w", err)
	}
	p.ContextID = w.ExecutionContextID
	return nil
}

// worldID is the unique id of canopy's world in the main frame, "" when
// not known.
func (tw *tabWatch) worldID() string {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.world
}
