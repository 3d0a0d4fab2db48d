// Package session is canopy's one executor. Every action from every surface
// — the CLI's `canopy do`, MCP tools, batch steps, the shell, scripts — goes
// through [Session.Run], which does the same five things in the same order:
//
//  1. resolve the target strictly (package selector) on a fresh snapshot;
//  2. ask the policy for a permit for this very action (package policy);
//  3. act through the source, which demands the permit;
//  4. settle on the source's events, never on a fixed sleep (package settle);
//  5. read again and answer with the diff (package diff), or, when the
//     document was replaced, the outcome and the new page's snapshot.
//
// A source cannot be reached without a permit, and only the policy makes
// permits, so no surface can skip the policy.
package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/diff"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// Options tune a session. Zero values take the defaults.
type Options struct {
	// Settle tunes how long actions wait for the page to go quiet.
	Settle settle.Options
	// Budget is the token budget of snapshots in replies (tree default).
	Budget int
	// DiffBudget is the token budget of a diff (diff default).
	DiffBudget int
	// Logger receives debug messages; nil discards them.
	Logger *slog.Logger
	// Audit receives one line per action (docs/tiers.md); nil writes none.
	Audit *audit.Log
	// Surface and Client say where actions come from, for the audit log:
	// "mcp", "cli", "library"…, and which MCP session.
	Surface, Client string
	// MaxReply caps a reply's text in bytes (default DefaultMaxReply; -1
	// for no cap); a longer one is cut with a line that says so.
	MaxReply int
	// ConfirmTimeout caps the wait for the user's yes to an action
	// --confirm names (default DefaultConfirmTimeout).
	ConfirmTimeout time.Duration
	// Stuck sets the stages of stuck detection (docs/diffs.md, stuck.go).
	Stuck StuckOptions
	// Downloads is the session's downloads folder: where the files actions
	// make are saved (package save) and uploads at act come from. Empty:
	// the source's (a Downloader's).
	Downloads string
}

// Session runs actions against one source, one at a time.
type Session struct {
	src    Source
	policy *policy.Policy
	opt    Options
	log    *slog.Logger

	mu   sync.Mutex     // actions run one at a time
	last *tree.Snapshot // the latest snapshot read, for a page that cannot be read now
	// behind is the page as it was before a modal dialog opened. A modal
	// makes the rest of the page inert, and Chromium leaves inert content
	// out of the accessibility tree: without this, opening a modal would
	// "remove" the page and closing it would "add" it all back.
	behind *tree.Snapshot
	// red knows every credential this session can type (learnt when it
	// starts) or typed, to keep its values out of replies, errors and
	// the audit log.
	red redactor
	// rec is what the gate learned of the action running now.
	rec *record
	// sig is stuck detection's memory, and the problem and stuck lines of
	// the action running now (signals.go).
	sig signals
}

// New returns a session over src governed by pol.
func New(src Source, pol *policy.Policy, opt Options) *Session {
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Session{src: src, policy: pol, opt: opt, log: log}
	s.learnSecrets()
	return s
}

// Timing breaks an action's time down, for --json and the benchmark.
type Timing struct {
	Read   time.Duration `json:"read_ns"`   // snapshot and resolve before acting
	Act    time.Duration `json:"act_ns"`    // the source's work
	Settle time.Duration `json:"settle_ns"` // waiting for quiet
	Diff   time.Duration `json:"diff_ns"`   // reading again and diffing
	Total  time.Duration `json:"total_ns"`
}

// Reply is what an action returns to the agent.
type Reply struct {
	// Text is the diff, the new page's snapshot, or a reading.
	Text string `json:"text"`
	// Image is a PNG, for screenshot.
	Image []byte `json:"-"`
	// File is the file the action saved (a screenshot given a path,
	// print's PDF), where it landed; Text says so too.
	File string `json:"file,omitempty"`
	// Outcomes are the outcome lines at the top of Text.
	Outcomes []string `json:"outcomes,omitempty"`
	// Signals are the lines at the end of Text that are neither diff nor
	// outcome: failed requests and console errors the action caused, and
	// stuck detection's hint or warning.
	Signals []string `json:"signals,omitempty"`
	// Replaced says the document was replaced: Text is a snapshot.
	Replaced bool `json:"replaced,omitempty"`
	// Settled says how settling ended.
	Settled settle.Result `json:"settle"`
	Timing  Timing        `json:"timing"`
}

// StepError is a batch step that failed: which one and why.
type StepError struct {
	Step   int
	Action action.Action
	Err    error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("step %d (%s) failed: %v", e.Step, e.Action, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// Run performs one action and returns its reply. A failed action leaves
// the session usable; its error names the node and the reason.
func (s *Session) Run(ctx context.Context, a action.Action) (Reply, error) {
	if err := a.Validate(); err != nil {
		return Reply{}, boundErr(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	rec := &record{}
	s.rec = rec
	s.beginSignals()
	var r Reply
	var err error
	if a.Kind == action.Batch {
		r, err = s.batch(ctx, a)
	} else if rr, ok, rerr := s.reading(ctx, a); ok {
		r, err = rr, rerr
	} else {
		var st *step
		st, err = s.step(ctx, a, nil)
		if st != nil {
			r = s.reply(st.before, st.after, st.res, nil)
			r.Timing = st.timing
		}
	}
	r.Timing.Total = time.Since(start)
	r.Text, r.Signals = s.withSignals(boundReply(s.redact(r.Text), s.maxReply()))
	s.shown(r.Text)
	if err != nil {
		s.shown(err.Error())
	}
	for i, o := range r.Outcomes {
		r.Outcomes[i] = s.redact(o)
	}
	s.audit(a, 0, rec, start, r.Outcomes, err)
	s.rec = nil
	return r, boundErr(s.redactErr(err))
}

// maxReply is the reply cap the options set, or the default.
func (s *Session) maxReply() int {
	if s.opt.MaxReply != 0 {
		return s.opt.MaxReply
	}
	return DefaultMaxReply
}

// stepResult is what one action did.
type stepResult struct {
	out      Output
	outcomes []string
	replaced bool
	settled  settle.Result
	targets  []*tree.Node // the nodes acted on (a batch's steps'), whose focusing is no news
	file     string       // the file the action saved (a batch's last)
	problems []Problem    // failed requests and console errors it caused
}

// target is the node the step acted on, or nil (a batch's last step's).
func (r stepResult) target() *tree.Node {
	if len(r.targets) == 0 {
		return nil
	}
	return r.targets[len(r.targets)-1]
}

// step is one action carried out: the snapshots around it and its result.
type step struct {
	before, after *tree.Snapshot
	res           stepResult
	timing        Timing
	// whole says before was read whole to find a node the part of a page
	// read on demand did not hold: the reading after is whole too, so the
	// diff compares like with like.
	whole bool
}

// step carries out one action: resolve, permit, act, settle, read again.
// before is the current snapshot when the caller has one (a batch).
func (s *Session) step(ctx context.Context, a action.Action, before *tree.Snapshot) (*step, error) {
	st := &step{before: before}
	t0 := time.Now()
	var err error
	if st.before == nil && a.Kind == action.Dialog {
		// A JavaScript dialog blocks the page: it cannot be read until the
		// dialog is answered, so the diff is against the last reading.
		st.before = s.last
	}
	if st.before == nil {
		if st.before, err = s.read(ctx); err != nil {
			if a.Kind != action.Navigate && a.Kind != action.Tabs {
				return nil, err
			}
			// Leaving a page that cannot be read now (a JavaScript dialog
			// is open on it) needs no reading of it: the last one stands in.
			s.log.Debug("page unreadable; acting without a fresh reading", "action", a.Kind, "err", err)
			st.before = s.last
		}
	}
	if ga := s.placed(a); ga.Tier() > s.policy.Tier() {
		// Refused whatever the target is: say so before looking for it.
		_, err := s.gate(ctx, ga, nil, nil, st.before)
		return nil, err
	}
	if a, _, err = s.pointTarget(ctx, st.before, a); err != nil {
		return nil, err
	}
	target, err := s.resolveWhole(ctx, st, a.Target)
	if err != nil {
		return nil, err
	}
	if target, err = formField(a, target); err != nil {
		return nil, err
	}
	to, err := s.resolveWhole(ctx, st, a.To)
	if err != nil {
		return nil, fmt.Errorf("drop target: %w", err)
	}
	if err := s.refuseStuck(a, target, st.before); err != nil {
		return nil, err
	}
	if err := s.refuseCopy(a, target, st.before); err != nil {
		return nil, err
	}
	judged, page := target, st.before
	if n, p := s.dialogReached(a, st.before); n != nil {
		judged, page = n, p
	}
	permit, err := s.gate(ctx, s.placed(a), judged, to, page)
	if err != nil {
		return nil, err
	}
	if a, err = s.credential(ctx, a, target, st.before); err != nil {
		return nil, err
	}
	if err := actionable(a, target); err != nil {
		return nil, err
	}
	if err := s.refusePrint(ctx, a, st.before); err != nil {
		return nil, err
	}
	st.timing.Read = time.Since(t0)

	t1 := time.Now()
	w, err := s.src.Watch(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.src.Do(ctx, permit, a, target, to)
	if errors.Is(err, ErrStale) && target != nil && target.Ref != "" {
		// The node was replaced between reading and acting (a re-render):
		// find it again by its ref and try once more.
		s.log.Debug("stale node, retrying", "ref", target.Ref, "err", err)
		fresh, ferr := s.read(ctx)
		if ferr == nil {
			if again := tree.FindRef(fresh.Root, target.Ref); again != nil {
				target = again
				out, err = s.src.Do(ctx, permit, a, target, to)
			}
		}
	}
	saved := ""
	if err == nil {
		if out, err = s.untaint(ctx, a, st.before, out); err != nil {
			w.Stop()
			return nil, err // canopy's refusal, worded whole
		}
		out, saved, err = s.save(permit, a, out)
	}
	st.timing.Act = time.Since(t1)
	if err != nil {
		w.Stop()
		return nil, describeErr(a, target, err)
	}

	if fenced(a.Kind) {
		out.Text = fence(out.Text)
	}
	if out.More != "" {
		out.Text += strings.TrimRight(out.More, "\n") + "\n"
	}
	t2 := time.Now()
	st.res.out, st.res.targets, st.res.file = out, []*tree.Node{target}, saved
	if a.Acts() && !out.Unchanged {
		st.res.settled = settle.WaitFlushed(ctx, w.Events(), flushOf(w), s.settleOptions(w))
	}
	st.res.outcomes, st.res.replaced = w.Stop()
	st.res.problems = s.watched(w)
	st.res.outcomes = append(append([]string{}, out.Outcomes...), st.res.outcomes...)
	st.res.replaced = st.res.replaced || out.Replaced
	st.timing.Settle = time.Since(t2)

	t3 := time.Now()
	if a.Acts() && !out.Unchanged && !st.res.settled.Blocked {
		if st.after, err = s.readAs(ctx, st.whole); err != nil {
			return nil, fmt.Errorf("%s done, but reading the page after it failed: %w", a.Kind, err)
		}
	} else {
		st.after = st.before
	}
	st.timing.Diff = time.Since(t3)
	s.observeStuck(a, st)
	return st, nil
}

// read takes a snapshot and remembers it as the latest.
func (s *Session) read(ctx context.Context) (*tree.Snapshot, error) {
	return s.readAs(ctx, false)
}

// readAs is read, whole when full (a page otherwise read on demand).
func (s *Session) readAs(ctx context.Context, full bool) (*tree.Snapshot, error) {
	snap, err := s.src.Snapshot(ctx, full)
	s.red.tree(snap)
	if err == nil {
		s.last = snap
	}
	return snap, err
}

// actionable checks what the tree already knows: input to a disabled
// control, typing into a read-only one. The source checks the rest
// (visible, stable, not covered) at the point of action.
// formField is where keys pressed "on a form" go: its first enabled
// field. `submit FORM` (press Enter) then submits the form as a person
// would, through the browser's default button; a form element itself
// takes no focus.
func formField(a action.Action, n *tree.Node) (*tree.Node, error) {
	if a.Kind != action.Press || n == nil || n.Role != "form" {
		return n, nil
	}
	f := tree.Find(n, func(x *tree.Node) bool {
		switch x.Role {
		case "textbox", "searchbox", "combobox", "spinbutton":
			return !x.States.Has(tree.Disabled)
		}
		return false
	})
	if f == nil {
		return nil, &ActionError{Kind: a.Kind, Node: tree.Line(n), Reason: "it has no field to press keys in: click its button instead"}
	}
	return f, nil
}

func actionable(a action.Action, n *tree.Node) error {
	if n == nil {
		return nil
	}
	spec, _ := action.SpecOf(a.Kind)
	if spec.Input && n.States.Has(tree.Disabled) {
		return &ActionError{Kind: a.Kind, Node: tree.Line(n), Reason: "it is disabled"}
	}
	if spec.EditsText && n.States.Has(tree.Readonly) {
		return &ActionError{Kind: a.Kind, Node: tree.Line(n), Reason: "it is read-only"}
	}
	return nil
}

// describeErr names the action and node in a source's error.
func describeErr(a action.Action, n *tree.Node, err error) error {
	var ae *ActionError
	if errors.As(err, &ae) {
		if ae.Kind == "" {
			ae.Kind = a.Kind
		}
		if ae.Node == "" && n != nil {
			ae.Node = tree.Line(n)
		}
		return err
	}
	if errors.Is(err, ErrStale) && n != nil {
		return fmt.Errorf("cannot %s %s: it is gone from the page (take a new snapshot): %w", a.Kind, tree.Line(n), err)
	}
	if n != nil {
		return fmt.Errorf("cannot %s %s: %w", a.Kind, tree.Line(n), err)
	}
	return fmt.Errorf("%s: %w", a.Kind, err)
}

// diff compares two readings, seeing through modal dialogs: when one opens,
// the page behind it is not reported as removed; when it closes, the page
// is compared with how it was before the dialog opened.
func (s *Session) diff(before, after *tree.Snapshot) diff.Diff {
	d := diff.Compute(before, after)
	mb, ma := hasModal(before), hasModal(after)
	switch {
	case !mb && ma:
		s.behind = before
		kept := d.Changes[:0]
		for _, c := range d.Changes {
			if c.Op != diff.Removed {
				kept = append(kept, c)
			}
		}
		d.Changes = kept
	case mb && !ma && s.behind != nil:
		through := diff.Compute(s.behind, after)
		through.Outcomes = d.Outcomes
		d = through
		s.behind = nil
	case !ma:
		s.behind = nil
	}
	return d
}

// hasModal reports whether a modal dialog is open in the snapshot.
func hasModal(s *tree.Snapshot) bool {
	if s == nil {
		return false
	}
	found := false
	tree.Walk(s.Root, func(n *tree.Node) bool {
		if n.States.Has(tree.Modal) {
			found = true
		}
		return !found
	})
	return found
}

// reply builds the answer of acting from the snapshots around it: the
// outcome lines and the diff, or the new page's snapshot when the document
// was replaced. reads are outputs of reading steps (a batch) appended after.
func (s *Session) reply(before, after *tree.Snapshot, res stepResult, reads []string) Reply {
	r := Reply{Outcomes: res.outcomes, Replaced: res.replaced, Settled: res.settled, Image: res.out.Image, File: res.file}
	switch {
	case res.out.Image != nil && res.out.Text == "" && after == before:
		r.Text = fmt.Sprintf("screenshot: %d bytes PNG\n", len(res.out.Image))
	case res.out.Text != "" && after == before:
		r.Text = res.out.Text // a reading
		if len(res.outcomes) > 0 {
			r.Text = strings.Join(res.outcomes, "\n") + "\n" + r.Text
		}
	case res.replaced:
		var b strings.Builder
		for _, o := range res.outcomes {
			b.WriteString(o)
			b.WriteByte('\n')
		}
		b.WriteString(tree.Format(after, tree.Options{Budget: s.opt.Budget}))
		r.Text = b.String()
	default:
		d := s.diff(before, after)
		d.DropFocusOn(res.targets...)
		d.Prepend(res.outcomes...)
		r.Text = d.Format(diff.Options{Budget: s.opt.DiffBudget})
	}
	for _, t := range reads {
		r.Text += t
	}
	return r
}
