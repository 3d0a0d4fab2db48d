package browser

import (
	"context"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/settle"
)

// frameSession is canopy's own session on an out-of-process frame's target.
// It stays attached for the Browser's lifetime (or until the frame goes), so
// later snapshots pay the attach once.
type frameSession struct {
	ctx    context.Context // chromedp context attached to the frame's target
	cancel context.CancelFunc
	// The <iframe> element that shows this target's root frame, in the
	// target ownerTID: input coordinates inside the frame are offset by it.
	ownerTID target.ID
	owner    cdp.BackendNodeID
	// changes counts the frame's own events that can change its tree,
	// heard from canopy's observer and shadow root tracker in it, for the
	// kept tree (kept.go). heard says both were installed and its events
	// are listened to: otherwise no tree that holds it is kept.
	changes changeCounter
	heard   bool
	// tab is the tab whose read attached it: its observer's reports are
	// that tab's actions' effects.
	tab target.ID
	// root is the target's root frame, where a flush asks its timers.
	root cdp.FrameID
}

// noteOwner records which <iframe> shows an out-of-process frame target.
func (b *Browser) noteOwner(tid, ownerTID target.ID, owner cdp.BackendNodeID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if fs := b.frames[tid]; fs != nil {
		fs.ownerTID, fs.owner = ownerTID, owner
	}
}

// frameInfo is one frame of the page: where it lives and who owns it.
type frameInfo struct {
	id       cdp.FrameID
	parent   cdp.FrameID      // "" for the main frame
	url      string           // the frame's document URL
	failed   string           // the URL an error page stands for, or ""
	session  *chromedp.Target // the target whose renderer holds the frame
	target   target.ID        // that target's id
	ownerIn  *chromedp.Target // the target that holds the parent frame (and the <iframe>)
	ownerTID target.ID        // its id
}

// document is the URL of the document the frame shows, as --domains judges
// it: for the browser's error page, the URL that failed to load.
func (f *frameInfo) document() string {
	if f.failed != "" {
		return f.failed
	}
	return f.url
}

// discoverFrames lists every frame of the tab: the frames of the tab's own
// target (same-process frames at any depth), then every out-of-process frame
// target whose parent frame is already known, repeated until no new frame
// appears, so cross-site frames nested in cross-site frames are found too.
func (b *Browser) discoverFrames(ctx context.Context, tab *chromedp.Target, tabID target.ID) ([]*frameInfo, error) {
	ft, err := cdp.Call(ctx, tab, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, fmt.Errorf("read the frame tree: %w", err)
	}
	var frames []*frameInfo
	where := map[cdp.FrameID]*frameInfo{}
	var add func(t *page.FrameTree, parent cdp.FrameID, s *chromedp.Target, tid target.ID)
	add = func(t *page.FrameTree, parent cdp.FrameID, s *chromedp.Target, tid target.ID) {
		f := &frameInfo{id: t.Frame.ID, parent: parent, url: t.Frame.URL, failed: t.Frame.UnreachableURL, session: s, target: tid}
		if p := where[parent]; p != nil {
			f.ownerIn, f.ownerTID = p.session, p.target
		}
		frames = append(frames, f)
		where[f.id] = f
		for _, c := range t.ChildFrames {
			add(c, f.id, s, tid)
		}
	}
	add(ft.FrameTree, "", tab, tabID)

	infos, err := chromedp.Targets(b.browserCtx)
	if err != nil {
		return frames, fmt.Errorf("list targets: %w", err)
	}
	live := map[target.ID]bool{}
	for progress := true; progress; {
		progress = false
		for _, info := range infos {
			if info.Type != "iframe" || live[info.TargetID] || where[info.ParentFrameID] == nil {
				continue
			}
			live[info.TargetID] = true
			progress = true
			s, err := b.frameSession(ctx, info.TargetID)
			if err != nil {
				b.log.Debug("attach to frame target", "target", info.TargetID, "err", err)
				continue
			}
			sft, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
			if err != nil {
				b.log.Debug("frame tree of frame target", "target", info.TargetID, "err", err)
				continue
			}
			b.noteRoot(info.TargetID, sft.FrameTree.Frame.ID)
			add(sft.FrameTree, info.ParentFrameID, s, info.TargetID)
		}
	}
	b.dropGoneFrames(live)
	return frames, nil
}

// frameSession returns canopy's session on an out-of-process frame target,
// attaching on first use.
func (b *Browser) frameSession(ctx context.Context, id target.ID) (*chromedp.Target, error) {
	b.mu.Lock()
	fs := b.frames[id]
	b.mu.Unlock()
	if fs == nil {
		// WithDetachOnCancel: cancelling a WithTargetID context would
		// otherwise close the frame's target.
		fctx, cancel := chromedp.NewContext(b.browserCtx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
		if err := runWithin(ctx, fctx); err != nil {
			cancel()
			return nil, err
		}
		fs = &frameSession{ctx: fctx, cancel: cancel}
		if t := b.curTab(); t != nil {
			fs.tab = t.id
		}
		fs.heard = b.hear(ctx, fs)
		b.mu.Lock()
		b.frames[id] = fs
		b.mu.Unlock()
	}
	c := chromedp.FromContext(fs.ctx)
	if c == nil || c.Target == nil {
		return nil, fmt.Errorf("frame target %s has no session", id)
	}
	return c.Target, nil
}

// hear listens to an out-of-process frame's events and installs canopy's
// observer, shadow root tracker and timer tracker in its documents, before
// anything of it is read: what changes from then on is counted. It reports
// whether the frame is heard (the timer tracker only shortens waits, so
// without it the frame still is).
func (b *Browser) hear(ctx context.Context, fs *frameSession) bool {
	if err := chromedp.Listen(fs.ctx, func(ev any) { b.onFrameEvent(fs, ev) }); err != nil {
		b.log.Debug("listen to a frame target", "err", err)
		return false
	}
	c := chromedp.FromContext(fs.ctx)
	if err := observe(ctx, c.Target); err != nil {
		b.log.Debug("observe a frame target", "err", err)
		return false
	}
	if err := trackShadows(ctx, c.Target); err != nil {
		b.log.Debug("track a frame target's shadow roots", "err", err)
		return false
	}
	if err := trackTimers(ctx, c.Target); err != nil {
		b.log.Debug("track a frame target's timers", "err", err)
	}
	return true
}

// noteRoot records an out-of-process frame target's root frame.
func (b *Browser) noteRoot(tid target.ID, frame cdp.FrameID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if fs := b.frames[tid]; fs != nil {
		fs.root = frame
	}
}

// onFrameEvent runs on chromedp's reader goroutine for an out-of-process
// frame's events: it counts those that can change the tree, and hands what
// its observer reports to the action in progress on its tab, as the tab's
// own observer's reports are (watch.go).
func (b *Browser) onFrameEvent(fs *frameSession, ev any) {
	fs.changes.note(ev)
	e, ok := ev.(*runtime.EventBindingCalled)
	if !ok || e.Name != mutationBinding || strings.HasPrefix(e.Payload, flushPayload) {
		return
	}
	if t := b.curTab(); t != nil && t.id == fs.tab {
		b.currentWatch().send(settle.Event{Kind: settle.Mutation, Incidental: e.Payload == "f" || e.Payload == "s"})
	}
}

// frameTarget is an out-of-process frame target canopy attached to, and
// its root frame.
type frameTarget struct {
	fs   *frameSession
	root cdp.FrameID
}

// frameTargets returns the frames from other processes that tab tab
// shows, as far as canopy attached to them.
func (b *Browser) frameTargets(tab target.ID) []frameTarget {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []frameTarget
	for _, fs := range b.frames {
		if fs.tab == tab {
			out = append(out, frameTarget{fs, fs.root})
		}
	}
	return out
}

// heardFrame returns the session of an out-of-process frame target when
// its changes are counted, or nil.
func (b *Browser) heardFrame(id target.ID) *frameSession {
	b.mu.Lock()
	defer b.mu.Unlock()
	if fs := b.frames[id]; fs != nil && fs.heard {
		return fs
	}
	return nil
}

// dropGoneFrames detaches from frame targets that no longer exist.
func (b *Browser) dropGoneFrames(live map[target.ID]bool) {
	var gone []*frameSession
	b.mu.Lock()
	for id, fs := range b.frames {
		if !live[id] {
			gone = append(gone, fs)
			delete(b.frames, id)
		}
	}
	b.mu.Unlock()
	for _, fs := range gone { // outside the lock, as in Close
		fs.cancel()
	}
}
