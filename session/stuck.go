package session

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// Stuck detection (docs/diffs.md): an agent that repeats an action which changes
// nothing, or bounces the page between two states, is told so — a hint
// line, then a warning line, then the action is refused without running
// until the agent does something else or the page changes by itself.

// The default stages of stuck detection: the 3rd identical action in a row
// that changed nothing adds a hint, the 4th a warning, the 5th is refused.
// Two fruitless repeats are common enough (a click that lands while the
// page is still wiring up its handlers) to pass silently; by the third the
// agent is probably looping, and two more lines of telling cost less than
// the dozens of identical calls a stuck agent makes.
const (
	DefaultStuckHint   = 3
	DefaultStuckWarn   = 4
	DefaultStuckRefuse = 5
)

// ErrStuck marks an action refused by stuck detection: it was repeated
// without effect (or cycled the page) too often.
var ErrStuck = errors.New("stuck detection")

// StuckOptions set the stages of stuck detection. Each counts identical
// actions in a row that changed nothing, or for a cycle, the times the page
// went back to the state it had two actions earlier. Hint and Warn add a
// line to the reply from that count on; Refuse is the count at which the
// action is refused instead of run. Zero takes the default; a negative
// value turns the stage off.
type StuckOptions struct {
	Hint, Warn, Refuse int
}

// StuckOff turns every stage of stuck detection off.
var StuckOff = StuckOptions{Hint: -1, Warn: -1, Refuse: -1}

// ParseStuck reads the --stuck flag: "off", one number N (refuse the Nth
// repeat, warn one before, hint two before), or "HINT,WARN,REFUSE" where
// 0 or "off" turns a stage off.
func ParseStuck(s string) (StuckOptions, error) {
	s = strings.TrimSpace(s)
	if s == "off" || s == "0" {
		return StuckOff, nil
	}
	parts := strings.Split(s, ",")
	nums := make([]int, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "off" {
			nums[i] = -1
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return StuckOptions{}, fmt.Errorf("--stuck takes off, a count (5) or three counts HINT,WARN,REFUSE (3,4,5); got %q", s)
		}
		if n == 0 {
			n = -1
		}
		nums[i] = n
	}
	switch len(nums) {
	case 1:
		n := nums[0]
		if n < 3 {
			return StuckOptions{}, fmt.Errorf("--stuck %d: a single count must be at least 3 (hint and warning come before it); use HINT,WARN,REFUSE to set each", n)
		}
		return StuckOptions{Hint: n - 2, Warn: n - 1, Refuse: n}, nil
	case 3:
		return StuckOptions{Hint: nums[0], Warn: nums[1], Refuse: nums[2]}, nil
	}
	return StuckOptions{}, fmt.Errorf("--stuck takes off, a count (5) or three counts HINT,WARN,REFUSE (3,4,5); got %q", s)
}

// resolved fills in the defaults.
func (o StuckOptions) resolved() StuckOptions {
	def := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	return StuckOptions{def(o.Hint, DefaultStuckHint), def(o.Warn, DefaultStuckWarn), def(o.Refuse, DefaultStuckRefuse)}
}

// stuckStep is one acting step as stuck detection remembers it.
type stuckStep struct {
	key, label    string // the action in canonical form, and as lines name it
	before, after uint64 // fingerprints of the page around it
	changed       bool   // the reply was more than "no change"
	failed        string // a failed request it caused, if any
}

// stuck follows a session's acting steps. Readings (snapshot, find,
// extract, wait…) neither count nor reset it.
type stuck struct {
	hist  [2]*stuckStep // the latest acting steps, newest first
	same  int           // hist[0] is the same-th identical no-op in a row
	cycle int           // times in a row the page went back two states
	fps   [2]struct {   // fingerprints of the latest snapshots
		snap *tree.Snapshot
		fp   uint64
	}
}

// fingerprint hashes what a diff compares in a snapshot (not the focus:
// see focusRef), cached for the two latest snapshots.
func (st *stuck) fingerprint(s *tree.Snapshot) uint64 {
	for _, c := range st.fps {
		if c.snap == s && s != nil {
			return c.fp
		}
	}
	fp := fingerprint(s)
	st.fps[1] = st.fps[0]
	st.fps[0].snap, st.fps[0].fp = s, fp
	return fp
}

// stuckKey is an action in canonical form: its target by the ref it
// resolved to, so `click e12` and `click role:button name:Save` are one.
func stuckKey(a action.Action, target *tree.Node) string {
	a.Steps, a.Timeout = nil, 0
	if target != nil && target.Ref != "" {
		a.Target, a.At = target.Ref, ""
	}
	if a.Button == "" {
		a.Button = "left"
	}
	return a.String()
}

// stuckLabel names an action in a line, short.
func stuckLabel(key string) string {
	const limit = 80
	if r := []rune(key); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return key
}

// refuse is asked before an action runs, on the page as just read: it
// refuses the action that would repeat a fruitless action, or continue a
// cycle, once the Refuse stage is reached. A page that changed since the
// last step (by itself, during a wait) lets the action run again.
func (st *stuck) refuse(opt StuckOptions, a action.Action, target *tree.Node, page *tree.Snapshot) error {
	opt = opt.resolved()
	last := st.hist[0]
	if opt.Refuse <= 0 || last == nil || !a.Acts() || a.Kind == action.Batch {
		return nil
	}
	key := stuckKey(a, target)
	if st.fingerprint(page) != last.after {
		return nil
	}
	if st.same >= opt.Refuse-1 && key == last.key {
		return fmt.Errorf("refused: %s changed nothing %s; do something else first (another element or action, or wait for the page to change) — %w (--stuck sets it)",
			last.label, inARow(st.same), ErrStuck)
	}
	if prev := st.hist[1]; st.cycle >= opt.Refuse-1 && prev != nil && key == prev.key {
		return fmt.Errorf("refused: %s would take the page back again; it went back and forth between two states %s (%s); do something else first — %w (--stuck sets it)",
			stuckLabel(key), times(st.cycle), cyclePair(prev, last), ErrStuck)
	}
	return nil
}

// observe records an acting step that ran and returns the line it earns,
// if any: a hint, or a warning that the next repeat is refused.
func (st *stuck) observe(opt StuckOptions, a action.Action, target *tree.Node, before, after *tree.Snapshot, res stepResult) string {
	opt = opt.resolved()
	if !a.Acts() || a.Kind == action.Batch {
		return ""
	}
	key := stuckKey(a, target)
	e := &stuckStep{key: key, label: stuckLabel(key), before: st.fingerprint(before), after: st.fingerprint(after)}
	e.changed = e.before != e.after || len(res.outcomes) > 0 || res.replaced || res.out.Text != "" || res.out.Image != nil
	if fb, fa := focusRef(before), focusRef(after); fb != fa && (target == nil || fa != target.Ref) {
		e.changed = true
	}
	for _, p := range res.problems {
		if !p.Console {
			e.failed = p.Line
			break
		}
	}
	last, prev := st.hist[0], st.hist[1]
	switch {
	case !e.changed && last != nil && !last.changed && last.key == key:
		st.same++
	case !e.changed:
		st.same = 1
	default:
		st.same = 0
	}
	// A cycle: this step took the page back to where it was before the
	// previous one, which changed it; past the first return, the actions
	// repeat too (A, B, A, B).
	if e.changed && e.before != e.after && last != nil && last.changed && e.before == last.after && e.after == last.before &&
		(st.cycle == 0 || (prev != nil && key == prev.key)) {
		st.cycle++
	} else {
		st.cycle = 0
	}
	st.hist[0], st.hist[1] = e, last
	switch {
	case st.same > 0:
		return stage(opt, st.same, fmt.Sprintf("%s changed nothing %s", e.label, inARow(st.same)), noEffectAdvice(e))
	case st.cycle > 0:
		return stage(opt, st.cycle, fmt.Sprintf("the page went back and forth between two states %s (%s)", times(st.cycle), cyclePair(last, e)),
			"the actions undo each other; try another way")
	}
	return ""
}

// times words a count: "once", "3 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

// inARow words a count of repeats: "once", "3 times in a row".
func inARow(n int) string {
	if n == 1 {
		return "once"
	}
	return times(n) + " in a row"
}

// noEffectAdvice says why an action may have done nothing.
func noEffectAdvice(e *stuckStep) string {
	if e.failed != "" {
		return "a request failed (" + e.failed + "): the site refuses it; change the input or try another way"
	}
	return "the control may do nothing here; check it is enabled and the right one, or try another way"
}

// stage words the line for count at opt's stages: hint, warning or none.
func stage(opt StuckOptions, count int, what, advice string) string {
	switch {
	case opt.Warn > 0 && count >= opt.Warn:
		if opt.Refuse > 0 && count+1 >= opt.Refuse {
			return "warning: " + what + "; the next one is refused — " + advice
		}
		return "warning: " + what + " — " + advice
	case opt.Hint > 0 && count >= opt.Hint:
		return "hint: " + what + " — " + advice
	}
	return ""
}

// cyclePair names the two actions of a cycle, or the one when it is the
// same action both ways (a toggle).
func cyclePair(a, b *stuckStep) string {
	if a == nil || a.key == b.key {
		return b.label
	}
	return a.label + ", " + b.label
}

// fingerprint hashes a snapshot's header and tree — roles, names, values,
// states but focus, levels, refs and shape — with FNV-1a.
func fingerprint(s *tree.Snapshot) uint64 {
	h := uint64(14695981039346656037)
	add := func(str string) {
		for i := 0; i < len(str); i++ {
			h ^= uint64(str[i])
			h *= 1099511628211
		}
		h ^= 0xff
		h *= 1099511628211
	}
	if s == nil {
		return h
	}
	add(s.Header.Kind)
	add(s.Header.Title)
	add(s.Header.URL)
	var walk func(n *tree.Node)
	walk = func(n *tree.Node) {
		add(n.Role)
		add(n.Name)
		add(n.Value)
		add(n.Ref)
		h ^= uint64(n.States&^tree.Focused) | uint64(n.Level)<<32
		h *= 1099511628211
		for _, c := range n.Children {
			walk(c)
		}
		h ^= 0xfe // end of children
		h *= 1099511628211
	}
	if s.Root != nil {
		walk(s.Root)
	}
	return h
}

// focusRef is the ref of the focused node, "" when none has a ref.
func focusRef(s *tree.Snapshot) string {
	if s == nil {
		return ""
	}
	ref := ""
	found := false
	tree.Walk(s.Root, func(n *tree.Node) bool {
		if !found && n.States.Has(tree.Focused) {
			ref, found = n.Ref, true
		}
		return !found
	})
	return ref
}
