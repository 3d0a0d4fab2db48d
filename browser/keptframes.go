package browser

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

// Frames in another process. A cross-site frame's document lives in its own
// renderer, behind its own target: the tab's observer does not hear it. Its
// frame session (frames.go) runs canopy's observer and shadow root tracker
// in it and counts its events, so a tree that holds such frames is kept
// like the tab's own: each frame target's change count and probe are noted
// before its tree is read, and the kept tree answers while every one of them
// is the same.

// targetMark is what a read notes of an out-of-process frame target before
// its tree is read, as startRead notes of the tab: its change count before
// and after the probe of its root frame, and the probe.
type targetMark struct {
	frame cdp.FrameID // the target's root frame
	// fs is the session whose count it is: a session attached again
	// counts from zero, so marks of two sessions do not compare.
	fs         *frameSession
	gen, after uint64
	probe      probeState
	err        error
}

// markTargets notes every out-of-process frame target among frames, all at
// once. A target whose changes are not counted is marked with an error.
func (b *Browser) markTargets(ctx context.Context, frames []*frameInfo) map[target.ID]targetMark {
	roots := map[target.ID]cdp.FrameID{}
	for _, fr := range frames[1:] {
		if fr.target != frames[0].target && fr.ownerTID != fr.target {
			roots[fr.target] = fr.id
		}
	}
	if len(roots) == 0 {
		return nil
	}
	marks := make(map[target.ID]targetMark, len(roots))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for id, frame := range roots {
		wg.Go(func() {
			m := b.markTarget(ctx, id, frame)
			mu.Lock()
			marks[id] = m
			mu.Unlock()
		})
	}
	wg.Wait()
	return marks
}

// markTarget notes one out-of-process frame target.
func (b *Browser) markTarget(ctx context.Context, id target.ID, frame cdp.FrameID) targetMark {
	m := targetMark{frame: frame, err: errUnheard}
	fs := b.heardFrame(id)
	if fs == nil {
		return m
	}
	s := chromedpTarget(fs.ctx)
	if s == nil {
		return m
	}
	m.fs = fs
	m.gen = fs.changes.n.Load()
	m.probe, m.err = b.probe(ctx, s, frame)
	m.after = fs.changes.n.Load()
	return m
}

// errUnheard marks a frame target whose changes canopy does not count.
var errUnheard = errWhole("a frame in another process is not heard")

// targetsUnchanged reports whether nothing changed in the kept tree's
// out-of-process frames since it was read: each is probed again.
func (b *Browser) targetsUnchanged(ctx context.Context, k *keptTree) bool {
	if len(k.others) == 0 {
		return true
	}
	var mu sync.Mutex
	same := true
	var wg sync.WaitGroup
	for id, was := range k.others {
		wg.Go(func() {
			now := b.markTarget(ctx, id, was.frame)
			mu.Lock()
			defer mu.Unlock()
			same = same && now.err == nil && now.fs == was.fs && now.probe == was.probe && now.after == was.gen
		})
	}
	wg.Wait()
	return same
}

// targetsStill reports whether the kept tree's out-of-process frames sent
// no change since it was read (the drift check's test that the page held
// still).
func (b *Browser) targetsStill(k *keptTree) bool {
	for id, was := range k.others {
		fs := b.heardFrame(id)
		if fs == nil || fs != was.fs || fs.changes.n.Load() != was.gen {
			return false
		}
	}
	return true
}

// framesKept says why a read's frames cannot be kept, or "": every target's
// DOM snapshot must be in, its shadow roots watched, its documents parsed,
// and every frame of it that lives elsewhere one of the frames read.
func framesKept(start readStart, others map[target.ID]targetMark, frames []*frameInfo, f *fetched) string {
	main := frames[0].target
	away := map[target.ID]int{} // frames each target shows from another
	for _, fr := range frames[1:] {
		if fr.ownerTID != "" && fr.ownerTID != fr.target {
			away[fr.ownerTID]++
		}
	}
	seen := map[target.ID]bool{}
	for _, fr := range frames {
		if seen[fr.target] {
			continue
		}
		seen[fr.target] = true
		probe := start.probe
		if fr.target != main {
			m, ok := others[fr.target]
			if !ok || m.err != nil {
				return "frames in another process canopy does not hear"
			}
			if m.probe.parsing {
				return "the page is still being parsed"
			}
			probe = m.probe
		}
		d := f.dom[fr.target]
		switch {
		case d == nil:
			return "no DOM snapshot"
		case d.shadows != probe.shadows:
			return "shadow roots canopy does not see into"
		case d.elsewhere != away[fr.target]:
			return "a frame on its way to another process"
		}
	}
	return ""
}
