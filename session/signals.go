package session

import (
	"fmt"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// Problem is a failed request or a console error that happened while an
// action ran (docs/diffs.md), worded as the reply prints it:
//
//	request POST /api/save → 500
//	console error: "TypeError: x is undefined"
type Problem struct {
	// Console says it is a console error or an uncaught exception; else
	// it is a failed request.
	Console bool
	// Line is the line, without a newline. Page text in it is quoted on
	// one line, as tree lines quote it.
	Line string
}

// ProblemWatcher is a Watcher that also notices failed requests and
// console errors. The executor asks after Stop.
type ProblemWatcher interface {
	Problems() []Problem
}

// The most problem lines of each kind a reply prints; the rest are counted.
const (
	maxRequestLines = 3
	maxConsoleLines = 3
)

// signals are the lines an action earns besides its diff: failed requests
// and console errors its watch saw, and stuck detection's hint or warning.
// They follow the diff (or stand instead of `no change`), are not cut by
// the diff's budget and survive the reply cap.
type signals struct {
	stuck    stuck
	problems []Problem // of the Run in progress, every step's
	notes    []string  // stuck detection's lines for it
}

// beginSignals starts a Run's collection.
func (s *Session) beginSignals() {
	s.sig.problems, s.sig.notes = nil, nil
}

// watched collects what a stopped watch saw besides outcomes.
func (s *Session) watched(w Watcher) []Problem {
	pw, ok := w.(ProblemWatcher)
	if !ok {
		return nil
	}
	ps := pw.Problems()
	s.sig.problems = append(s.sig.problems, ps...)
	return ps
}

// refuseStuck refuses an action that repeats a fruitless one, or carries
// on a cycle, too often (StuckOptions).
func (s *Session) refuseStuck(a action.Action, target *tree.Node, page *tree.Snapshot) error {
	return s.sig.stuck.refuse(s.opt.Stuck, a, target, page)
}

// observeStuck records an acting step that ran.
func (s *Session) observeStuck(a action.Action, st *step) {
	if line := s.sig.stuck.observe(s.opt.Stuck, a, st.res.target(), st.before, st.after, st.res); line != "" {
		s.sig.notes = append(s.sig.notes, line)
	}
}

// withSignals ends a reply's text with the Run's problem and stuck lines,
// and returns them too.
// A bare `no change` gives way to the problem lines: a save the server
// refused changed nothing on the page, but it did not do nothing.
func (s *Session) withSignals(text string) (string, []string) {
	lines := append(problemLines(s.sig.problems), s.sig.notes...)
	if len(lines) == 0 || text == "" {
		return text, nil
	}
	if text == "no change\n" && len(s.sig.problems) > 0 {
		text = ""
	}
	for i, l := range lines {
		lines[i] = s.redact(l)
	}
	return text + strings.Join(lines, "\n") + "\n", lines
}

// problemLines prints problems: each distinct line once (with a count when
// repeated), requests then console errors, at most a few of each, the rest
// counted in a last line.
func problemLines(ps []Problem) []string {
	var out []string
	for _, console := range []bool{false, true} {
		var order []string
		count := map[string]int{}
		total := 0
		for _, p := range ps {
			if p.Console != console {
				continue
			}
			if count[p.Line] == 0 {
				order = append(order, p.Line)
			}
			count[p.Line]++
			total++
		}
		limit, what := maxRequestLines, "failed request"
		if console {
			limit, what = maxConsoleLines, "console error"
		}
		shown := 0
		for _, l := range order[:min(limit, len(order))] {
			n := count[l]
			if n > 1 {
				l += fmt.Sprintf(" (%d times)", n)
			}
			out = append(out, l)
			shown += n
		}
		if rest := total - shown; rest > 0 {
			s := ""
			if rest > 1 {
				s = "s"
			}
			out = append(out, fmt.Sprintf("… %d more %s%s", rest, what, s))
		}
	}
	return out
}
