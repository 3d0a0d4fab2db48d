package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// deadPage has a button that does nothing (e1), one that toggles a menu
// open and shut (e2), and a clock the test moves by hand. Its watch
// reports the problems queued for the next action.
type deadPage struct {
	open     bool
	clock    int
	calls    int
	problems []Problem
}

func (f *deadPage) Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error) {
	root := &tree.Node{Role: tree.RoleDocument, Children: []*tree.Node{
		{Role: "button", Name: "Dead", Ref: "e1", Key: "k1"},
		{Role: "button", Name: "Menu", Ref: "e2", Key: "k2"},
		{Role: tree.RoleText, Name: strings.Repeat("tick ", f.clock)},
	}}
	if f.open {
		root.Children = append(root.Children, &tree.Node{Role: "menu", Name: "Options", Ref: "e3", Key: "k3"})
	}
	return &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "Dead"}, Root: root}, nil
}

type problemWatch struct {
	fakeWatch
	ps []Problem
}

func (w problemWatch) Problems() []Problem { return w.ps }

func (f *deadPage) Watch(ctx context.Context) (Watcher, error) {
	ps := f.problems
	f.problems = nil
	return problemWatch{fakeWatch{make(chan settle.Event)}, ps}, nil
}

func (f *deadPage) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (Output, error) {
	if err := p.Allows(a.Kind); err != nil {
		return Output{}, err
	}
	f.calls++
	if a.Kind == action.Click && target.Ref == "e2" {
		f.open = !f.open
	}
	return Output{}, nil
}

// stuckRun runs step and fails the test on an error.
func stuckRun(t *testing.T, s *Session, step string) string {
	t.Helper()
	r, err := runStep(t, s, step)
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	return r.Text
}

func TestStuckStages(t *testing.T) {
	src := &deadPage{}
	s := New(src, policy.New(action.Act), Options{})
	for i := 1; i <= 2; i++ {
		if got := stuckRun(t, s, "click e1"); got != "no change\n" {
			t.Fatalf("click %d: %q", i, got)
		}
	}
	// By selector it is the same action.
	got := stuckRun(t, s, `click role:button name:Dead`)
	want := "no change\nhint: click e1 changed nothing 3 times in a row — the control may do nothing here; check it is enabled and the right one, or try another way\n"
	if got != want {
		t.Errorf("3rd:\n%q\nwant\n%q", got, want)
	}
	got = stuckRun(t, s, "click e1")
	if !strings.Contains(got, "\nwarning: click e1 changed nothing 4 times in a row; the next one is refused — ") {
		t.Errorf("4th: %q", got)
	}
	calls := src.calls
	_, err := runStep(t, s, "click e1")
	if !errors.Is(err, ErrStuck) || src.calls != calls {
		t.Fatalf("5th: %v (source reached %d times)", err, src.calls-calls)
	}
	if want := "refused: click e1 changed nothing 4 times in a row; do something else first (another element or action, or wait for the page to change) — stuck detection (--stuck sets it)"; err.Error() != want {
		t.Errorf("refusal:\n%s\nwant\n%s", err, want)
	}
	// Still refused: nothing happened in between.
	if _, err := runStep(t, s, "click e1"); !errors.Is(err, ErrStuck) {
		t.Errorf("6th: %v", err)
	}
	// A reading neither counts nor resets.
	stuckRun(t, s, "snapshot")
	stuckRun(t, s, "find role:button")
	if _, err := runStep(t, s, "click e1"); !errors.Is(err, ErrStuck) {
		t.Errorf("after readings: %v", err)
	}
	// The page changing by itself lets it run again; it still changes
	// nothing, so the count goes on.
	src.clock++
	got = stuckRun(t, s, "click e1")
	if !strings.HasPrefix(got, "no change\nwarning: click e1 changed nothing 5 times") {
		t.Errorf("after the page changed: %q", got)
	}
	// A different action resets.
	stuckRun(t, s, "click e2")
	for i := 1; i <= 2; i++ {
		if got := stuckRun(t, s, "click e1"); got != "no change\n" {
			t.Errorf("after a reset, click %d: %q", i, got)
		}
	}
}

func TestStuckReadingsDoNotCount(t *testing.T) {
	s := New(&deadPage{}, policy.New(action.Act), Options{})
	stuckRun(t, s, "click e1")
	stuckRun(t, s, "snapshot")
	stuckRun(t, s, "click e1")
	stuckRun(t, s, "find role:button")
	stuckRun(t, s, "wait role:button")
	if got := stuckRun(t, s, "click e1"); !strings.Contains(got, "hint: click e1 changed nothing 3 times") {
		t.Errorf("readings in between reset the count: %q", got)
	}
}

func TestStuckCycle(t *testing.T) {
	src := &deadPage{}
	s := New(src, policy.New(action.Act), Options{})
	// Open, shut, open: two returns, nothing said.
	for i := 1; i <= 3; i++ {
		if got := stuckRun(t, s, "click e2"); strings.Contains(got, "hint") || strings.Contains(got, "warning") {
			t.Fatalf("toggle %d: %q", i, got)
		}
	}
	got := stuckRun(t, s, "click e2")
	if !strings.Contains(got, "\nhint: the page went back and forth between two states 3 times (click e2) — the actions undo each other; try another way\n") {
		t.Errorf("4th toggle: %q", got)
	}
	if got := stuckRun(t, s, "click e2"); !strings.Contains(got, "\nwarning: the page went back and forth between two states 4 times (click e2); the next one is refused") {
		t.Errorf("5th toggle: %q", got)
	}
	_, err := runStep(t, s, "click e2")
	if !errors.Is(err, ErrStuck) || !strings.Contains(err.Error(), "click e2 would take the page back again") {
		t.Fatalf("6th toggle: %v", err)
	}
	// Something else, then the toggle runs again.
	stuckRun(t, s, "click e1")
	stuckRun(t, s, "click e2")
}

func TestStuckOffAndCustom(t *testing.T) {
	s := New(&deadPage{}, policy.New(action.Act), Options{Stuck: StuckOff})
	for i := 1; i <= 8; i++ {
		if got := stuckRun(t, s, "click e1"); got != "no change\n" {
			t.Fatalf("off, click %d: %q", i, got)
		}
	}
	// Only a refusal, at the 2nd.
	s = New(&deadPage{}, policy.New(action.Act), Options{Stuck: StuckOptions{Hint: -1, Warn: -1, Refuse: 2}})
	if got := stuckRun(t, s, "click e1"); got != "no change\n" {
		t.Fatalf("custom, 1st: %q", got)
	}
	if _, err := runStep(t, s, "click e1"); !errors.Is(err, ErrStuck) {
		t.Errorf("custom, 2nd: %v", err)
	}
}

func TestStuckBatchStepsCount(t *testing.T) {
	src := &deadPage{}
	s := New(src, policy.New(action.Act), Options{})
	got := stuckRun(t, s, "click e1; click e1; click e1")
	if !strings.Contains(got, "hint: click e1 changed nothing 3 times in a row") {
		t.Errorf("batch: %q", got)
	}
	stuckRun(t, s, "click e1")
	_, err := runStep(t, s, "snapshot; click e1")
	var se *StepError
	if !errors.As(err, &se) || se.Step != 2 || !errors.Is(err, ErrStuck) {
		t.Errorf("batch step past the warning: %v", err)
	}
}

func TestProblemLines(t *testing.T) {
	src := &deadPage{}
	s := New(src, policy.New(action.Act), Options{})
	save := Problem{Line: "request POST /api/save → 500"}
	src.problems = []Problem{save, {Console: true, Line: `console error: "boom"`}}
	r, err := runStep(t, s, "click e1")
	if want := "request POST /api/save → 500\nconsole error: \"boom\"\n"; err != nil || r.Text != want {
		t.Errorf("no change gives way:\n%q (%v)\nwant\n%q", r.Text, err, want)
	}
	if len(r.Signals) != 2 || r.Signals[1] != `console error: "boom"` {
		t.Errorf("signals: %q", r.Signals)
	}
	// After a change, at the end.
	src.problems = []Problem{save}
	got := stuckRun(t, s, "click e2")
	if !strings.HasPrefix(got, "+ menu") || !strings.HasSuffix(got, "\nrequest POST /api/save → 500\n") {
		t.Errorf("after a diff: %q", got)
	}
	// Capped and counted, repeats merged.
	src.problems = nil
	for _, p := range []string{"/a", "/b", "/b", "/c", "/d", "/e"} {
		src.problems = append(src.problems, Problem{Line: "request GET " + p + " → 404"})
	}
	got = stuckRun(t, s, "click e1")
	want := "request GET /a → 404\nrequest GET /b → 404 (2 times)\nrequest GET /c → 404\n… 2 more failed requests\n"
	if got != want {
		t.Errorf("capped:\n%q\nwant\n%q", got, want)
	}
	// The hint names the failed request.
	src.problems = []Problem{save}
	stuckRun(t, s, "click e1")
	src.problems = []Problem{save}
	got = stuckRun(t, s, "click e1")
	if !strings.Contains(got, "hint: click e1 changed nothing 3 times in a row — a request failed (request POST /api/save → 500)") {
		t.Errorf("hint: %q", got)
	}
}

func TestParseStuck(t *testing.T) {
	for in, want := range map[string]StuckOptions{
		"off": StuckOff, "0": StuckOff, "5": {3, 4, 5}, "8": {6, 7, 8},
		"3,4,5": {3, 4, 5}, "off,off,3": {-1, -1, 3}, "2,0,0": {2, -1, -1},
	} {
		got, err := ParseStuck(in)
		if err != nil || got != want {
			t.Errorf("ParseStuck(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "2", "x", "1,2", "-1,2,3"} {
		if _, err := ParseStuck(in); err == nil {
			t.Errorf("ParseStuck(%q) should fail", in)
		}
	}
}
