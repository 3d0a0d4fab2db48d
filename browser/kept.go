package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/canopy-dev/canopy/tree"
)

// The kept tree. A tab keeps the tree it read last, with what the page
// looked like when the read began: the tab's change count (every event
// that can change the tree adds one) and a probe of the state no event
// reports (form controls' checked and value properties set by a script,
// which focus). The next read answers with the kept tree while both are
// the same, so a snapshot right after an action's reply, or the read
// before the next action, costs one round trip instead of a whole read.
//
// It keeps only what its events can vouch for. Mutations are reported by
// the observer in the tab's own renderer, inside shadow roots by the main
// world's tracker (shadows.go), and in frames of other processes by the
// same two on their targets (keptframes.go). A tree with a shadow root they
// cannot see into, a document still parsed, a large page read on demand,
// or a read with notes is not kept (Stats.Whole says why).
// Options.DriftCheck compares every reuse with a fresh read.

// changeCounter counts a tab's events that can change its tree.
type changeCounter struct {
	n atomic.Uint64
	// structural counts the changes an incremental read cannot follow:
	// navigations, frames, dialogs, crashes (changes.go).
	structural atomic.Uint64
}

// note counts ev when it can change the tree: a DOM mutation, input or
// focus reported by the observer, a frame or document event, a dialog.
// Network and console events cannot by themselves; the mutations they
// cause are counted when they happen.
func (c *changeCounter) note(ev any) {
	switch e := ev.(type) {
	case *runtime.EventBindingCalled:
		if e.Name != mutationBinding || strings.HasPrefix(e.Payload, flushPayload) {
			return // a settle round trip's mark is no change
		}
	case *page.EventFrameNavigated, *page.EventNavigatedWithinDocument, *page.EventFrameAttached,
		*page.EventFrameDetached, *page.EventFrameStartedLoading, *page.EventFrameStoppedLoading,
		*page.EventJavascriptDialogOpening, *page.EventJavascriptDialogClosed,
		*dom.EventDocumentUpdated, *inspector.EventTargetCrashed, *runtime.EventExecutionContextsCleared,
		*target.EventAttachedToTarget, *target.EventDetachedFromTarget:
		c.structural.Add(1)
	default:
		return
	}
	c.n.Add(1)
}

// keptTree is a tab's last tree, and what it was read against. Only whole
// reads and their incremental updates are kept, so it serves full
// snapshots too.
type keptTree struct {
	snap       *tree.Snapshot
	stats      Stats
	gen        uint64 // the tab's change count when the read began
	structural uint64 // the tab's structural change count then
	probe      probeState
	// others marks the frame targets in another process as they were
	// when the read began (keptframes.go).
	others map[target.ID]targetMark
	frame  cdp.FrameID
	// frames and raw are what the tree was converted from, for
	// incremental reads to splice changed parts into (changes.go).
	frames []*frameInfo
	raw    *fetched
	// stale says boxes outside the parts re-read since the last whole read
	// may have moved: a read that needs boxes reads whole.
	stale bool
}

// probeWorld is the isolated world probeJS runs in: the page's scripts
// cannot see it, nor change what it reads by replacing DOM methods.
const probeWorld = "canopy-probe"

// probeJS sums up what changes the tree without a DOM mutation or an
// event the observer hears: form controls' properties set by a script,
// which element has focus, in the document and its same-origin frames; and
// the page's scroll position, size and zoom, which move every box. It
// also says whether a document is still being parsed, which the observer
// does not report (observer.go), and asks the shadow root trackers
// (shadows.go) how many roots they watch and what state the controls in
// them hold.
var probeJS = fmt.Sprintf(`(() => {
  let h = 0, n = 0, parsing = false, shadows = 0, sh = 0;
  const mix = s => { s = String(s); for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0; h = (h * 31 + 124) | 0; };
  const place = e => { let p = ''; for (; e && e.parentElement; e = e.parentElement) p = e.tagName + [...e.parentElement.children].indexOf(e) + '/' + p; return p; };
  const askShadows = %s;
  const walk = doc => {
    if (doc.readyState === 'loading') parsing = true;
    try { askShadows(doc.defaultView); } catch (e) {}
    for (const e of doc.querySelectorAll('input,textarea,select')) {
      n++;
      mix(e.tagName === 'SELECT' ? e.selectedIndex : e.value);
      mix((e.checked ? 'c' : '') + (e.indeterminate ? 'i' : ''));
    }
    mix(place(doc.activeElement));
    for (const f of doc.querySelectorAll('iframe,frame')) { try { if (f.contentDocument) walk(f.contentDocument); } catch (e) {} }
  };
  walk(document);
  const de = document.documentElement;
  return JSON.stringify([n + ':' + h, [scrollX, scrollY, de ? de.clientWidth : 0, de ? de.clientHeight : 0].join(), [innerWidth, innerHeight, devicePixelRatio, visualViewport ? visualViewport.scale : 1].join(),
    location.href, document.title, parsing, shadows, sh]);
})()`, fmt.Sprintf(askShadowsJS, shadowAsk, shadowAnswer))

// probeState is probeJS's answer, in parts: an incremental read follows
// changes of state (its marks say where) and scroll (boxes), not of the
// others.
type probeState struct {
	state  string // form controls' values and checked states, focus
	scroll string // the page's scroll position, and its width without a scroll bar (one coming moves boxes)
	size   string // the viewport's size, the device pixel ratio, the zoom
	url    string
	title  string
	// parsing says the document, or a frame's the probe can read, is
	// still being parsed: no tree of it is kept.
	parsing bool
	// shadows is how many elements the shadow roots that the trackers of
	// the documents the probe can read watch hold (shadows.go).
	shadows int
	// shadowState hashes the controls' state and the focus inside those
	// roots: the observer's marks do not reach there, so a change of it
	// makes an incremental read whole (changes.go).
	shadowState int64
}

// probe evaluates probeJS in the tab's main frame.
func (b *Browser) probe(ctx context.Context, s cdp.Session, frame cdp.FrameID) (probeState, error) {
	var p probeState
	raw, err := b.probeText(ctx, s, frame)
	if err != nil {
		return p, err
	}
	var parts []any
	if err := json.Unmarshal([]byte(raw), &parts); err != nil || len(parts) != 8 {
		return p, fmt.Errorf("probe the page: a malformed answer")
	}
	str := func(v any) string { s, _ := v.(string); return s }
	parsing, _ := parts[5].(bool)
	shadows, _ := parts[6].(float64)
	inShadows, _ := parts[7].(float64)
	return probeState{state: str(parts[0]), scroll: str(parts[1]), size: str(parts[2]), url: str(parts[3]), title: str(parts[4]),
		parsing: parsing, shadows: int(shadows), shadowState: int64(inShadows)}, nil
}

// probeText evaluates probeJS and returns its answer as is.
func (b *Browser) probeText(ctx context.Context, s cdp.Session, frame cdp.FrameID) (string, error) {
	w, err := cdp.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: probeWorld})
	if err != nil {
		return "", fmt.Errorf("create the probe's world: %w", err)
	}
	res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
		Expression: probeJS, ContextID: w.ExecutionContextID, ReturnByValue: new(true),
	})
	if err != nil {
		return "", fmt.Errorf("probe the page: %w", err)
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return "", fmt.Errorf("probe the page: the script failed")
	}
	var v string
	if err := json.Unmarshal(res.Result.Value, &v); err != nil {
		return "", fmt.Errorf("probe the page: %w", err)
	}
	return v, nil
}

// readStart is what a read notes before it begins, to keep its tree.
type readStart struct {
	gen        uint64 // the change count before the probe
	after      uint64 // the change count once the probe answered
	structural uint64
	probe      probeState
	// loading says a document of the tab's process may still be parsed
	// (probeState.parsing, or a frame the probe cannot read is loading).
	loading bool
	err     error
}

// startRead notes the tab's change counts and probe before a read. The
// count after the probe is the one to compare with a kept tree's: events
// travel on the same connection ahead of the answer, so every change the
// page made before the probe ran has been counted by then.
func (b *Browser) startRead(ctx context.Context, t *tab, s cdp.Session) readStart {
	if t == nil || t.watch == nil {
		return readStart{err: fmt.Errorf("no tab")}
	}
	st := readStart{gen: t.watch.changes.n.Load(), structural: t.watch.changes.structural.Load()}
	st.probe, st.err = b.probe(ctx, s, cdp.FrameID(t.id))
	st.after = t.watch.changes.n.Load()
	st.loading = st.probe.parsing || t.watch.subframeLoading()
	return st
}

// keptTree returns the tab's kept tree, or nil.
func (b *Browser) keptTree(t *tab) *keptTree {
	if t == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return t.kept
}

// unchanged reports whether nothing changed since k was read.
func (k *keptTree) unchanged(start readStart) bool {
	return start.err == nil && start.probe == k.probe && start.after == k.gen
}

// keep stores a read's tree for the next read, or says why it cannot
// serve one (Stats.Whole of the next read). stale says its boxes may be
// older than its nodes (an incremental read's).
func (b *Browser) keep(t *tab, start readStart, others map[target.ID]targetMark, snap *tree.Snapshot, st Stats, frames []*frameInfo, f *fetched, stale bool) {
	if t == nil {
		return
	}
	why := ""
	switch {
	case start.err != nil:
		why = "the page could not be probed"
	case start.loading:
		why = "the page is still being parsed"
	case len(f.partial) > 0 && f.dom[frames[0].target] == nil:
		why = "a large page is read on demand"
	case len(snap.Header.Notes) > 0:
		why = "the read left notes"
	default:
		why = framesKept(start, others, frames, f) // keptframes.go
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t.keptWhy = why
	t.kept = nil
	if why == "" {
		t.kept = &keptTree{snap: snap, stats: st, gen: start.gen, structural: start.structural, probe: start.probe,
			others: others, frame: frames[0].id, frames: frames, raw: f, stale: stale}
	}
}

// partial reports whether the kept tree was read on demand: a full read
// cannot use it.
func (k *keptTree) partial() bool { return len(k.raw.partial) > 0 }

// reuse answers a read with the kept tree: the same nodes and refs, the
// header's tab number as it is now.
func (b *Browser) reuse(k *keptTree) (*tree.Snapshot, Stats) {
	snap := *k.snap
	snap.Header.Index = b.curIndex()
	st := k.stats
	st.Reused = true
	st.Whole, st.Reread, st.Regions = "", "", 0
	return &snap, st
}

// checkDrift reads the page again where the kept tree answered, alone or
// updated incrementally, and fails when the two differ: the events, the
// probe or the marks missed a change. Boxes are compared when the kept
// tree vouches for them (not Stats.Stale).
//
// A page that changed since the kept tree's read began, or while the
// fresh read ran (its change count moved: a timer of its own, an
// animation, a frame loading), is not compared: the two reads saw two
// pages.
func (b *Browser) checkDrift(ctx context.Context, opt SnapshotOptions, kept *tree.Snapshot, kst Stats) (*tree.Snapshot, Stats, error) {
	boxes := !kst.Stale
	t := b.curTab()
	k := b.keptTree(t)
	still := k != nil && t.watch != nil && t.watch.changes.n.Load() == k.gen && b.targetsStill(k)
	if k != nil && k.partial() {
		opt.like = k // compare the same part of the page
	}
	fresh, st, err := b.read(ctx, opt, false)
	if err != nil {
		return nil, st, err
	}
	// Events travel ahead of the replies on the same connection, so a
	// change the fresh read saw (a frame swapped into its own process
	// while it read) has been counted by now.
	still = still && t.watch.changes.n.Load() == k.gen && b.targetsStill(k)
	if !still {
		b.log.Debug("drift check skipped: the page changed since the read")
		return fresh, st, nil
	}
	was, is := tree.Format(kept, tree.Options{Full: true}), tree.Format(fresh, tree.Options{Full: true})
	if was != is {
		return nil, st, fmt.Errorf("drift check: the kept tree differs from a fresh read of the page:\n%s", firstDifference(was, is))
	}
	if d := movedBox(kept.Root, fresh.Root); boxes && d != "" {
		return nil, st, fmt.Errorf("drift check: the kept tree's boxes differ from a fresh read's: %s", d)
	}
	st.Checked = true
	st.Reused, st.Regions, st.Stale = kst.Reused, kst.Regions, kst.Stale
	return fresh, st, nil
}

// project cuts a whole read down to the part of the page a kept tree read
// on demand holds, for the drift check: a node stays when the kept tree
// read it, or when it is new (listed by no node the kept tree read), and
// its parent stays. A node the kept tree left unread stays out, and the
// kept tree's placeholders say so again.
func project(f *fetched, frame cdp.FrameID, k *keptTree) {
	main := k.frames[0]
	if main.id != frame || f.docs[frame] == nil {
		return
	}
	kept := k.raw.docs[main.id]
	read := make(map[accessibility.NodeID]bool, len(kept))
	for _, n := range kept {
		read[n.NodeID] = true
	}
	known := listed(kept)
	byID := map[accessibility.NodeID]*accessibility.Node{}
	var root *accessibility.Node
	for _, n := range f.docs[frame] {
		byID[n.NodeID] = n
		if n.ParentID == "" {
			root = n
		}
	}
	var out []*accessibility.Node
	var walk func(n *accessibility.Node)
	walk = func(n *accessibility.Node) {
		out = append(out, n)
		for _, id := range n.ChildIDs {
			if c := byID[id]; c != nil && (read[id] || !known[id]) {
				walk(c)
			}
		}
	}
	if root != nil {
		walk(root)
	}
	f.docs[frame] = out
	f.partial[frame] = k.raw.partial[main.id]
}

// firstDifference shows where two texts part: the lines around the first
// that differs, from each.
func firstDifference(was, is string) string {
	a, b := strings.Split(was, "\n"), strings.Split(is, "\n")
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	window := func(lines []string) string {
		lo, hi := max(i-3, 0), min(i+6, len(lines))
		return strings.Join(lines[lo:hi], "\n")
	}
	return fmt.Sprintf("at line %d, kept:\n%s\nfresh:\n%s", i+1, window(a), window(b))
}

// touched counts an action canopy performs on the current tab as a change:
// the input itself can change the tree with no event to say so (a :hover
// rule shows a tooltip), so the read after it is whole.
func (b *Browser) touched() {
	if t := b.curTab(); t != nil && t.watch != nil {
		t.watch.changes.n.Add(1)
	}
}

// movedBox describes the first node whose box differs between two reads of
// the same page by more than half a pixel, or "".
func movedBox(was, is *tree.Node) string {
	boxes := map[string]*tree.Rect{}
	tree.Walk(is, func(n *tree.Node) bool {
		if n.Key != "" {
			boxes[n.Key] = n.Bounds
		}
		return true
	})
	moved := ""
	tree.Walk(was, func(n *tree.Node) bool {
		b, ok := boxes[n.Key]
		if moved != "" || n.Key == "" || !ok {
			return moved == ""
		}
		if (b == nil) != (n.Bounds == nil) || b != nil && (math.Abs(b.X-n.Bounds.X) > 0.5 || math.Abs(b.Y-n.Bounds.Y) > 0.5 ||
			math.Abs(b.W-n.Bounds.W) > 0.5 || math.Abs(b.H-n.Bounds.H) > 0.5) {
			moved = fmt.Sprintf("%s: %v, fresh %v", tree.Line(n), n.Bounds, b)
		}
		return true
	})
	return moved
}
