package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/tree"
)

// Stats describe the cost of one snapshot, for --json and the benchmark.
type Stats struct {
	Frames   int           `json:"frames"`    // documents read (main + child frames)
	Targets  int           `json:"targets"`   // renderer targets (1 + out-of-process frames)
	AXNodes  int           `json:"ax_nodes"`  // raw accessibility nodes Chromium returned
	Nodes    int           `json:"nodes"`     // nodes in the cleaned tree
	CDPTime  time.Duration `json:"cdp_ns"`    // wall time spent waiting on CDP
	WallTime time.Duration `json:"wall_ns"`   // whole snapshot
	Settled  time.Duration `json:"settle_ns"` // unused until actions settle; kept for --json
	// Reused says nothing changed since the last read: its tree answered
	// (kept.go), and the other figures are that read's.
	Reused bool `json:"reused,omitempty"`
	// Whole says why the tree of this read will not answer the next one
	// when nothing changes: shadow roots canopy cannot see into, a frame
	// on its way to another process, a document still parsed, a large page
	// read on demand.
	Whole string `json:"not_kept,omitempty"`
	// Checked says the kept tree would have answered, and the drift check
	// (Options.DriftCheck) found a fresh read the same.
	Checked bool `json:"drift_checked,omitempty"`
	// Regions says the kept tree was updated from this many parts of the
	// page re-read (changes.go); Reread says why a read that could have
	// been incremental was whole.
	Regions int    `json:"regions_read,omitempty"`
	Reread  string `json:"whole_because,omitempty"`
	// Stale says boxes outside the parts re-read may have moved since the
	// last whole read (SnapshotOptions.Boxes reads them afresh).
	Stale bool `json:"boxes_stale,omitempty"`
}

// LastStats returns the cost of the latest snapshot read.
func (b *Browser) LastStats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// SnapshotOptions tune a snapshot read.
type SnapshotOptions struct {
	// Full reads every node even of a very large page (which can take a
	// minute); otherwise a large document is read on demand, enough for a
	// budgeted snapshot.
	Full bool
	// Boxes asks for every node's box as the page lays it out now. A tree
	// updated incrementally keeps the boxes of the parts not re-read, which
	// a change elsewhere may have moved; with Boxes such a tree is read
	// whole. Actions at a point need it; text and diffs do not.
	Boxes bool
	// like, for the drift check of a kept tree read on demand, reads the
	// page whole and keeps the nodes that tree read (kept.go's project).
	like *keptTree
}

// Snapshot reads the current tab — every frame, in-process or not, and every
// shadow root — into one cleaned tree with stable refs. A frame that goes
// away while it is read is left out and noted in the header.
//
// While nothing changed since the last read, its tree answers (kept.go).
func (b *Browser) Snapshot(ctx context.Context, opt SnapshotOptions) (*tree.Snapshot, Stats, error) {
	return b.read(ctx, opt, true)
}

// read is Snapshot; reuse false reads the page even when the kept tree
// could answer (the drift check's fresh read).
func (b *Browser) read(ctx context.Context, opt SnapshotOptions, reuse bool) (*tree.Snapshot, Stats, error) {
	begin := time.Now()
	var st Stats
	c := chromedp.FromContext(b.tabCtx())
	if c == nil || c.Target == nil {
		return nil, st, envErrorf("the browser has no open tab")
	}
	if t := b.curTab(); t != nil && t.watch != nil {
		if d := t.watch.openDialog(); d != nil {
			return nil, st, fmt.Errorf("the page is blocked by a JavaScript %s (%s): answer it with dialog accept or dialog dismiss", d.Type, quoteText(d.Message))
		}
	}
	tab := c.Target
	tabID := targetID(b.tabCtx())
	if err := b.responsive(ctx, tab); err != nil {
		return nil, st, err
	}

	t := b.curTab()
	start := b.startRead(ctx, t, tab)
	reread := ""
	if k := b.keptTree(t); reuse && k != nil && !(opt.Boxes && k.stale) && !(opt.Full && k.partial()) {
		if k.unchanged(start) && b.targetsUnchanged(ctx, k) {
			snap, kst := b.reuse(k)
			if b.driftCheck {
				kst.Stale = k.stale
				return b.checkDrift(ctx, opt, snap, kst)
			}
			b.mu.Lock()
			b.last = snap.Root
			b.stats = kst
			b.mu.Unlock()
			return snap, kst, nil
		}
		snap, ust, err := b.update(ctx, t, tab, k, start)
		if err == nil {
			if b.driftCheck {
				return b.checkDrift(ctx, opt, snap, ust)
			}
			return snap, ust, nil
		}
		if ctx.Err() != nil {
			return nil, st, fmt.Errorf("snapshot interrupted: %w", err)
		}
		if w := errWhole(""); !errors.As(err, &w) {
			b.log.Debug("incremental read failed", "err", err)
		}
		reread = err.Error()
	}
	// The marks start again from this read (changes.go), while the
	// frames are listed.
	var reset sync.WaitGroup
	if t != nil && t.watch != nil {
		reset.Go(func() { t.watch.resetChanges(ctx, tab) })
	}
	frames, err := b.discoverFrames(ctx, tab, tabID)
	reset.Wait()
	if err != nil {
		return nil, st, err
	}
	others := b.markTargets(ctx, frames) // before their trees are read
	fetched := b.fetch(ctx, frames, opt.Full || opt.like != nil)
	if opt.like != nil {
		project(fetched, frames[0].id, opt.like)
	}
	st.CDPTime = time.Since(begin)
	if err := ctx.Err(); err != nil {
		return nil, st, fmt.Errorf("snapshot interrupted: %w", err)
	}
	if fetched.docs[frames[0].id] == nil {
		return nil, st, fmt.Errorf("read the page's accessibility tree: %w", fetched.errs[frames[0].id])
	}
	snap := b.assemble(frames, fetched, &st)
	snap.Header.Page = b.pageMeta(ctx, frames[0], snap.Root.Key) // pagemap.go
	b.mu.Lock()
	b.last = snap.Root
	b.mu.Unlock()
	st.Frames = len(fetched.docs)
	targets := map[target.ID]bool{}
	for _, fr := range frames {
		targets[fr.target] = true
	}
	st.Targets = len(targets)
	st.Nodes = tree.Count(snap.Root)
	st.WallTime = time.Since(begin)
	st.Reread = reread
	b.keep(t, start, others, snap, st, frames, fetched, false)
	b.mu.Lock()
	st.Whole = t.keptWhy
	b.stats = st
	b.mu.Unlock()
	return snap, st, nil
}

func targetID(ctx context.Context) target.ID {
	if c := chromedp.FromContext(ctx); c != nil && c.Target != nil {
		if info, err := cdp.Call(ctx, c.Target, target.GetTargetInfo, target.GetTargetInfoParams{}); err == nil && info.TargetInfo != nil {
			return info.TargetInfo.TargetID
		}
	}
	return ""
}

// fetched holds the raw CDP answers of one snapshot.
type fetched struct {
	mu     sync.Mutex
	docs   map[cdp.FrameID][]*accessibility.Node
	errs   map[cdp.FrameID]error
	owners map[cdp.FrameID]cdp.BackendNodeID
	// borders is the offset of each child frame's content from its
	// owner's border box, in layout px: the owner's left and top border
	// and padding (frameboxes.go).
	borders map[cdp.FrameID]offset
	dom     map[target.ID]*domFacts
	// partial has the frames read on demand (partial.go), with the
	// children seen but not read.
	partial map[cdp.FrameID]map[accessibility.NodeID]*accessibility.Node
	notes   []string
}

// fetch issues every call a snapshot needs at once: one AX tree per frame,
// one DOM snapshot per target, one frame-owner lookup per out-of-process
// frame; the DOM snapshots place the other frames (frameboxes.go).
func (b *Browser) fetch(ctx context.Context, frames []*frameInfo, full bool) *fetched {
	f := &fetched{
		docs:    map[cdp.FrameID][]*accessibility.Node{},
		errs:    map[cdp.FrameID]error{},
		owners:  map[cdp.FrameID]cdp.BackendNodeID{},
		borders: map[cdp.FrameID]offset{},
		dom:     map[target.ID]*domFacts{},
		partial: map[cdp.FrameID]map[accessibility.NodeID]*accessibility.Node{},
	}
	main := frames[0]
	var size *docSize
	if !full {
		if d, err := measureDoc(ctx, main.session); err == nil {
			d.Large = d.Elements > b.largeAt || d.Text > largeDocText
			if d.onDemand(b.onDemand) {
				size = &d
			}
		}
	}
	var wg sync.WaitGroup
	zoom := 0.0
	if len(frames) > 1 {
		wg.Go(func() { zoom = layoutZoom(ctx, main.session) })
	}
	holders := ownerTargets(frames)
	seen := map[target.ID]bool{}
	if size != nil && size.Large {
		// The DOM snapshot of a large page costs seconds too (minutes
		// for a lot of text); its click evidence and bounds are skipped.
		seen[main.target] = true
	}
	// The main frame's tree is asked for before its target's DOM
	// snapshot: Chromium builds it on the renderer's main thread and then
	// converts it in the browser process, where the DOM snapshot's main
	// thread work hides behind it. Asked the other way round, the two add
	// up (os.html: 640 ms against 540). A goroutine started last tends to
	// run first, hence the handshake.
	asked := make(chan struct{})
	for _, fr := range frames {
		switch {
		case fr == main && size != nil:
			wg.Go(func() { close(asked); f.readOnDemand(ctx, fr, *size) })
		case fr == main:
			wg.Go(func() { close(asked); f.readFull(ctx, fr) })
		default:
			wg.Go(func() { f.readFull(ctx, fr) })
		}
		if ownerAsked(fr, main, size != nil && size.Large) {
			wg.Go(func() { f.askOwner(ctx, b.log, fr) })
		}
		if !seen[fr.target] {
			seen[fr.target] = true
			wg.Go(func() {
				if fr.target == main.target {
					<-asked
				}
				res, err := cdp.Call(ctx, fr.session, domsnapshot.CaptureSnapshot, snapshotParams(holders[fr.target]))
				if err != nil {
					b.log.Debug("dom snapshot", "target", fr.target, "err", err)
					return
				}
				facts := indexDOM(res)
				f.mu.Lock()
				f.dom[fr.target] = facts
				f.mu.Unlock()
			})
		}
	}
	wg.Wait()
	b.placeFrames(ctx, frames, f, zoom)
	return f
}

// readFull reads a frame's whole AX tree in one call.
func (f *fetched) readFull(ctx context.Context, fr *frameInfo) {
	res, err := cdp.Call(ctx, fr.session, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: fr.id})
	f.record(fr.id, res.Nodes, nil, err)
}

// readOnDemand reads a frame's AX tree on demand (partial.go): within
// what a budgeted snapshot shows, or more of a large page, whose header
// says so.
func (f *fetched) readOnDemand(ctx context.Context, fr *frameInfo, size docSize) {
	lim := budgetLimits
	if size.Large {
		lim = largeLimits
	}
	p, err := readPartial(ctx, fr.session, fr.id, lim)
	if err != nil {
		f.record(fr.id, nil, nil, err)
		return
	}
	f.record(fr.id, p.nodes, p.unread, nil)
	if size.Large {
		f.mu.Lock()
		f.notes = append(f.notes, fmt.Sprintf("large page: %s, read on demand; --full reads all", size))
		f.mu.Unlock()
	}
}

// record stores one frame's nodes, or the error that kept them away.
// unread is non-nil for a frame read on demand.
func (f *fetched) record(id cdp.FrameID, nodes []*accessibility.Node, unread map[accessibility.NodeID]*accessibility.Node, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.errs[id] = err
		return
	}
	f.docs[id] = nodes
	if unread != nil {
		f.partial[id] = unread
	}
}

// assemble converts the main frame's tree and grafts each child frame's tree
// under its <iframe> node, accumulating frame offsets into the bounds.
func (b *Browser) assemble(frames []*frameInfo, f *fetched, st *Stats) *tree.Snapshot {
	main := frames[0]
	type ownerKey struct {
		t  target.ID
		id cdp.BackendNodeID
	}
	byOwner := map[ownerKey]*frameInfo{}
	for _, fr := range frames[1:] {
		if id, ok := f.owners[fr.id]; ok {
			byOwner[ownerKey{fr.ownerTID, id}] = fr
			if fr.target != fr.ownerTID {
				b.noteOwner(fr.target, fr.ownerTID, id)
			}
		}
	}
	notes := f.notes
	doc := func(fr *frameInfo, dx, dy float64) *axDoc {
		nodes := f.docs[fr.id]
		st.AXNodes += len(nodes)
		d := newAXDoc(fr.target, fr.id, nodes)
		d.unread, d.partial = f.partial[fr.id]
		d.dom = f.dom[fr.target]
		if d.dom != nil && fr != main {
			// A child document scrolled inside its frame shows its
			// content shifted up and left by the scroll offset.
			s := d.dom.docs[fr.id]
			dx, dy = dx-s.x, dy-s.y
		}
		d.dx, d.dy = dx, dy
		return d
	}
	var graft grafter
	graft = func(parent *axDoc, owner cdp.BackendNodeID) ([]*tree.Node, string) {
		fr := byOwner[ownerKey{parent.target, owner}]
		if fr == nil {
			return nil, ""
		}
		if f.docs[fr.id] == nil {
			if err := f.errs[fr.id]; err != nil && !errors.Is(err, context.Canceled) {
				notes = append(notes, "frame "+fr.url+" went away during the snapshot")
			}
			return nil, fr.document()
		}
		// The child document starts at the <iframe>'s content box.
		dx, dy := parent.dx, parent.dy
		if on := parent.domNode(owner); on != nil && on.bounds != nil {
			dx += on.bounds.X + f.borders[fr.id].x
			dy += on.bounds.Y + f.borders[fr.id].y
		}
		d := doc(fr, dx, dy)
		if d.root == nil {
			return nil, fr.document()
		}
		var out []*tree.Node
		for _, n := range d.convert(d.root, graft) {
			if n.Role == tree.RoleDocument {
				out = append(out, n.Children...)
			} else {
				out = append(out, n)
			}
		}
		return out, fr.document()
	}
	md := doc(main, 0, 0)
	root := &tree.Node{Role: tree.RoleDocument}
	if md.root != nil {
		if conv := md.convert(md.root, graft); len(conv) == 1 && conv[0].Role == tree.RoleDocument {
			root = conv[0]
		} else {
			root.Children = conv
		}
	}
	root.Frame = main.document()
	tree.Clean(root)
	b.newDocument(root.Key, main.url)
	b.refs.Assign(root)
	return &tree.Snapshot{
		Header: tree.Header{Kind: "tab", Index: b.curIndex(), Title: root.Name, URL: main.url, Notes: notes},
		Root:   root,
	}
}

// newDocument notes which document the current tab shows. When it is not
// the one its refs were handed out in (a navigation replaced it), that
// document's refs are retired: an agent's old e3 is refused with where it
// was rather than naming whatever the new page numbers e3. A tab switch is
// no replacement: each tab keeps its own document and refs.
func (b *Browser) newDocument(key, url string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.cur
	if t == nil || key == "" || key == t.doc {
		return
	}
	if t.doc != "" {
		b.refs.Retire(t.doc, "on "+trimScheme(t.docURL)+", which was replaced")
	}
	t.doc, t.docURL, t.lookups = key, url, 0
}
