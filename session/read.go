package session

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/extract"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// snapshot reads the view, optionally scoped to one node, as text.
func (s *Session) snapshot(ctx context.Context, a action.Action) (Reply, error) {
	t0 := time.Now()
	snap, err := s.model(ctx, a)
	if err != nil {
		return Reply{}, err
	}
	budget := a.Budget
	if budget <= 0 {
		budget = s.opt.Budget
	}
	r := Reply{Text: tree.Format(snap, tree.Options{Budget: budget, Full: a.Full})}
	r.Timing.Read = time.Since(t0)
	return r, nil
}

// Model reads the view, or the subtree the snapshot action a scopes to,
// as the node model rather than its text — for --json and programs that
// walk the tree. It passes the gate and the audit log as a snapshot does,
// and credentials are masked in it as in every reply.
func (s *Session) Model(ctx context.Context, a action.Action) (*tree.Snapshot, error) {
	if a.Kind != action.Snapshot {
		return nil, fmt.Errorf("Model reads a snapshot, not %s", a.Kind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	rec := &record{}
	s.rec = rec
	snap, err := s.model(ctx, a)
	s.audit(a, 0, rec, start, nil, err)
	s.rec = nil
	if err == nil {
		s.shownTree(snap.Root) // the caller sees every ref in the model
	}
	return snap, boundErr(s.redactErr(err))
}

// model reads the view through the gate, masks credentials and scopes it.
func (s *Session) model(ctx context.Context, a action.Action) (*tree.Snapshot, error) {
	if _, err := s.gate(ctx, a, nil, nil, nil); err != nil {
		return nil, err
	}
	snap, err := s.src.Snapshot(ctx, a.Full)
	if err != nil {
		return nil, err
	}
	s.red.tree(snap)
	if a.Target != "" {
		n, err := s.resolve(snap, a.Target)
		if err != nil {
			return nil, err
		}
		snap = Scoped(snap, n)
	}
	return snap, nil
}

// Scoped narrows a snapshot to the subtree of n; n is the first line.
func Scoped(s *tree.Snapshot, n *tree.Node) *tree.Snapshot {
	h := s.Header
	h.Page = nil // the page line is the whole page's, not a part's
	if n.Ref != "" {
		h.Notes = append(append([]string{}, h.Notes...), "scope "+n.Ref)
	}
	return &tree.Snapshot{Header: h, Root: &tree.Node{Role: tree.RoleDocument, Children: []*tree.Node{n}}}
}

// find lists the nodes a selector matches, with refs; with no match, the
// closest candidates.
func (s *Session) find(ctx context.Context, a action.Action) (Reply, error) {
	if _, err := s.gate(ctx, a, nil, nil, nil); err != nil {
		return Reply{}, err
	}
	if a.At != "" {
		snap, err := s.read(ctx)
		if err != nil {
			return Reply{}, err
		}
		_, n, err := s.pointTarget(ctx, snap, a)
		if err != nil {
			return Reply{}, err
		}
		return Reply{Text: tree.Line(n) + "\n"}, nil
	}
	sel, err := selector.Parse(a.Target)
	if err != nil {
		return Reply{}, err
	}
	snap, err := s.read(ctx)
	if err != nil {
		return Reply{}, err
	}
	if hasUnread(snap.Root) {
		// A search answers for the whole page, not the part read.
		snap = s.readMore(ctx, snap, a.Target)
	}
	hits := selector.FindHits([]*tree.Snapshot{snap}, sel)
	if len(hits) == 0 {
		_, err := s.resolve(snap, a.Target)
		return Reply{Text: err.Error() + "\n"}, nil
	}
	return Reply{Text: s.findLines(hits)}, nil
}

// defaultWait caps wait when the action gives no timeout.
const defaultWait = 10 * time.Second

// wait waits until a condition holds — a node appears or reaches a state,
// text shows, the URL matches, or the page is quiet — re-reading the page
// only when the source reports activity. The reply is what changed while
// waiting.
func (s *Session) wait(ctx context.Context, a action.Action) (Reply, error) {
	if _, err := s.gate(ctx, a, nil, nil, nil); err != nil {
		return Reply{}, err
	}
	limit := a.Limit()
	if limit <= 0 {
		limit = defaultWait
	}
	start := time.Now()
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cond, what, err := waitCondition(a)
	if err != nil {
		return Reply{}, err
	}
	// missed says the condition did not come: in time, or before the
	// caller stopped the wait (Ctrl-C in the shell, a cancelled call).
	missed := func() error {
		if err := parent.Err(); err != nil {
			return fmt.Errorf("stopped waiting for %s after %s: %w", what, roundMs(time.Since(start)), err)
		}
		return fmt.Errorf("waited %s for %s: it did not happen", roundMs(limit), what)
	}
	before, err := s.read(ctx)
	if err != nil {
		return Reply{}, err
	}
	w, err := s.src.Watch(ctx)
	if err != nil {
		return Reply{}, err
	}
	var outcomes []string
	var replaced bool
	defer func() { w.Stop() }()
	cur := before
	for {
		ok := cond(cur)
		if a.Quiet {
			res := settle.Wait(ctx, w.Events(), s.settleOptions(w))
			ok = res.Quiet
			if !ok && ctx.Err() == nil {
				continue // the cap of one settle: keep waiting up to the limit
			}
			if cur, err = s.read(context.WithoutCancel(ctx)); err != nil {
				return Reply{}, err
			}
		}
		if ok {
			outcomes, replaced = w.Stop()
			res := stepResult{outcomes: append([]string{fmt.Sprintf("waited %s for %s", roundMs(time.Since(start)), what)}, outcomes...), replaced: replaced}
			r := s.reply(before, cur, res, nil)
			r.Timing.Settle = time.Since(start)
			return r, nil
		}
		// Sleep until the page does something, then let it settle (a
		// flush will do: the condition is checked again at the next
		// activity anyway).
		if !nextActivity(ctx, w.Events()) {
			return Reply{}, missed()
		}
		settle.WaitFlushed(ctx, w.Events(), flushOf(w), s.settleOptions(w))
		if cur, err = s.read(ctx); err != nil {
			if ctx.Err() != nil {
				return Reply{}, missed()
			}
			return Reply{}, err
		}
	}
}

// nextActivity blocks until the source reports any event; false when ctx
// ended first.
func nextActivity(ctx context.Context, events <-chan settle.Event) bool {
	select {
	case <-ctx.Done():
		return false
	case _, ok := <-events:
		if !ok {
			<-ctx.Done()
			return false
		}
		return true
	}
}

func roundMs(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

// waitCondition turns a wait action into a test on a snapshot and words
// for the reply.
func waitCondition(a action.Action) (func(*tree.Snapshot) bool, string, error) {
	switch {
	case a.Quiet:
		return func(*tree.Snapshot) bool { return false }, "the page to be quiet", nil
	case a.URL != "":
		match, err := urlMatcher(a.URL)
		if err != nil {
			return nil, "", err
		}
		return func(s *tree.Snapshot) bool { return match(s.Header.URL) }, "URL " + a.URL, nil
	}
	target := a.Target
	if target == "" {
		target = "text:" + selector.Quote(a.Text)
	}
	sel, err := selector.Parse(target)
	if err != nil {
		return nil, "", err
	}
	state := a.State
	if state == "" {
		state = "visible"
	}
	test, err := stateTest(state)
	if err != nil {
		return nil, "", err
	}
	return func(s *tree.Snapshot) bool {
		return test(selector.Find([]*tree.Snapshot{s}, sel))
	}, sel.String() + " " + state, nil
}

// stateTest says when the matched nodes are in a wanted state.
func stateTest(state string) (func([]*tree.Node) bool, error) {
	all := func(f func(*tree.Node) bool) func([]*tree.Node) bool {
		return func(ns []*tree.Node) bool {
			if len(ns) == 0 {
				return false
			}
			for _, n := range ns {
				if !f(n) {
					return false
				}
			}
			return true
		}
	}
	switch state {
	case "visible", "attached":
		return func(ns []*tree.Node) bool { return len(ns) > 0 }, nil
	case "hidden", "detached":
		return func(ns []*tree.Node) bool { return len(ns) == 0 }, nil
	case "enabled":
		return all(func(n *tree.Node) bool { return !n.States.Has(tree.Disabled) }), nil
	case "disabled":
		return all(func(n *tree.Node) bool { return n.States.Has(tree.Disabled) }), nil
	case "checked":
		return all(func(n *tree.Node) bool { return n.States.Has(tree.Checked) }), nil
	case "unchecked":
		return all(func(n *tree.Node) bool { return !n.States.Has(tree.Checked) }), nil
	}
	return nil, fmt.Errorf("unknown wait state %q: use visible, hidden, enabled, disabled, checked, unchecked", state)
}

// urlMatcher matches a URL by substring, by glob when the pattern has a
// '*', or by regex written /…/.
func urlMatcher(p string) (func(string) bool, error) {
	if len(p) > 1 && strings.HasPrefix(p, "/") && strings.HasSuffix(p, "/") {
		re, err := regexp.Compile(p[1 : len(p)-1])
		if err != nil {
			return nil, fmt.Errorf("bad URL regex %s: %w", p, err)
		}
		return re.MatchString, nil
	}
	if strings.Contains(p, "*") {
		var b strings.Builder
		for i, part := range strings.Split(p, "*") {
			if i > 0 {
				b.WriteString(".*")
			}
			b.WriteString(regexp.QuoteMeta(part))
		}
		re := regexp.MustCompile("^" + b.String() + "$")
		return re.MatchString, nil
	}
	return func(u string) bool { return strings.Contains(u, p) }, nil
}

// batch runs steps in one call: each step is resolved on the page as the
// previous step left it, intermediate steps are not reported, and the reply
// is one diff for the whole batch. It stops at the first failing step and
// returns the diff so far with a *StepError.
func (s *Session) batch(ctx context.Context, a action.Action) (Reply, error) {
	if _, err := s.gate(ctx, a, nil, nil, nil); err != nil {
		return Reply{}, err
	}
	first, err := s.read(ctx)
	if err != nil {
		return Reply{}, err
	}
	cur := first
	whole := false // a step read the page whole (resolveWhole)
	var total stepResult
	var reads []string
	var timing Timing
	batchRec := s.rec
	defer func() { s.rec = batchRec }()
	for i, sa := range a.Steps {
		// Each step passes the gate and has its audit line.
		stepStart, stepRec := time.Now(), &record{}
		s.rec = stepRec
		var st *step
		r, reading, err := s.reading(ctx, sa)
		if reading {
			if err == nil {
				if sa.Kind != action.Wait {
					reads = append(reads, r.Text)
				}
				cur, err = s.read(ctx)
			}
		} else {
			st, err = s.step(ctx, sa, cur)
		}
		var outcomes []string
		if st != nil {
			outcomes = st.res.outcomes
		}
		s.audit(sa, i+1, stepRec, stepStart, outcomes, err)
		if err != nil {
			r := s.reply(first, cur, total, reads)
			r.Timing = timing
			return r, &StepError{Step: i + 1, Action: sa, Err: err}
		}
		if reading {
			continue
		}
		cur = st.after
		whole = whole || st.whole
		total.outcomes = append(total.outcomes, st.res.outcomes...)
		total.replaced = total.replaced || st.res.replaced
		total.targets = append(total.targets, st.res.targets...)
		total.settled.Waited += st.res.settled.Waited
		total.settled.Events += st.res.settled.Events
		total.settled.Quiet = st.res.settled.Quiet
		if st.res.out.Text != "" {
			reads = append(reads, st.res.out.Text)
		}
		if st.res.out.Image != nil {
			total.out.Image = st.res.out.Image
		}
		if st.res.file != "" {
			total.file = st.res.file
		}
		timing.Read += st.timing.Read
		timing.Act += st.timing.Act
		timing.Settle += st.timing.Settle
		timing.Diff += st.timing.Diff
	}
	if whole && hasUnread(first.Root) {
		// A step read the page whole to find its target: the batch's
		// diff is between two readings of the same part of the page.
		if part, err := s.read(ctx); err == nil {
			cur = part
		}
	}
	r := s.reply(first, cur, total, reads)
	r.Timing = timing
	return r, nil
}

// formExtract reports whether a is an extract of form values, which reads
// the tree rather than asking the source.
// reading runs the actions the executor answers itself from the tree —
// snapshot, find, wait, extract form — and reports whether a was one.
func (s *Session) reading(ctx context.Context, a action.Action) (Reply, bool, error) {
	var r Reply
	var err error
	switch {
	case a.Kind == action.Snapshot:
		r, err = s.snapshot(ctx, a)
	case a.Kind == action.Find:
		r, err = s.find(ctx, a)
	case a.Kind == action.Wait:
		r, err = s.wait(ctx, a)
	case formExtract(a):
		r, err = s.extractForm(ctx, a)
	default:
		return Reply{}, false, nil
	}
	return r, true, err
}

func formExtract(a action.Action) bool {
	f, err := extract.ParseFormat(a.Format)
	return a.Kind == action.Extract && err == nil && f.NeedsTree()
}

// extractForm lists form controls and their values from the tree (never a
// protected value).
func (s *Session) extractForm(ctx context.Context, a action.Action) (Reply, error) {
	if _, err := s.gate(ctx, a, nil, nil, nil); err != nil {
		return Reply{}, err
	}
	snap, err := s.read(ctx)
	if err != nil {
		return Reply{}, err
	}
	root := snap.Root
	if a.Target != "" {
		if root, err = s.resolve(snap, a.Target); err != nil {
			return Reply{}, err
		}
	}
	// canopy's own lines, the page's strings quoted in them: no fence.
	return Reply{Text: extract.Form(root) + "\n"}, nil
}
