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

// fakeSource is a page in memory: a login form whose checkbox a click
// toggles. It records what reached it.
type fakeSource struct {
	checked bool
	stale   int // how many Do calls fail with ErrStale first
	calls   []action.Kind
}

func (f *fakeSource) Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error) {
	box := &tree.Node{Role: "checkbox", Name: "Remember me", Ref: "e2", Key: "k2"}
	if f.checked {
		box.States |= tree.Checked
	}
	root := &tree.Node{Role: tree.RoleDocument, Children: []*tree.Node{
		{Role: "button", Name: "Sign in", Ref: "e1", Key: "k1"},
		box,
		{Role: "button", Name: "Gone", Ref: "e3", Key: "k3", States: tree.Disabled},
	}}
	return &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "Login"}, Root: root}, nil
}

type fakeWatch struct{ ch chan settle.Event }

func (w fakeWatch) Events() <-chan settle.Event { return w.ch }
func (w fakeWatch) Stop() ([]string, bool)      { return nil, false }

func (f *fakeSource) Watch(ctx context.Context) (Watcher, error) {
	return fakeWatch{make(chan settle.Event)}, nil
}

func (f *fakeSource) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (Output, error) {
	if err := p.Allows(a.Kind); err != nil {
		return Output{}, err
	}
	f.calls = append(f.calls, a.Kind)
	if f.stale > 0 {
		f.stale--
		return Output{}, ErrStale
	}
	if a.Kind == action.Click && target.Ref == "e2" {
		f.checked = !f.checked
	}
	return Output{}, nil
}

func runStep(t *testing.T, s *Session, step string) (Reply, error) {
	t.Helper()
	steps, err := action.ParseSteps(step)
	if err != nil {
		t.Fatal(err)
	}
	a := steps[0]
	if len(steps) > 1 {
		a = action.Action{Kind: action.Batch, Steps: steps}
	}
	return s.Run(context.Background(), a)
}

func TestRunDiff(t *testing.T) {
	src := &fakeSource{}
	s := New(src, policy.New(action.Act), Options{})
	r, err := runStep(t, s, `click role:checkbox name:"Remember me"`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "~ checkbox \"Remember me\" e2: not checked → checked\n"; r.Text != want {
		t.Errorf("reply %q, want %q", r.Text, want)
	}
	if !r.Settled.Quiet {
		t.Errorf("a page with no events should settle quiet: %+v", r.Settled)
	}
	r, _ = runStep(t, s, `click e1`)
	if r.Text != "no change\n" {
		t.Errorf("a no-op: %q", r.Text)
	}
}

func TestPolicyBeforeSource(t *testing.T) {
	src := &fakeSource{}
	s := New(src, policy.New(action.Observe), Options{})
	_, err := runStep(t, s, `click e2`)
	if !errors.Is(err, policy.ErrDenied) {
		t.Fatalf("click under observe: %v", err)
	}
	// The same holds for every step of a batch.
	_, err = runStep(t, s, `snapshot; click e2`)
	if !errors.Is(err, policy.ErrDenied) {
		t.Fatalf("batch with a click under observe: %v", err)
	}
	if len(src.calls) != 0 || src.checked {
		t.Errorf("the source was reached: %v", src.calls)
	}
	// A permit for one action does not cover another.
	p, err := policy.New(action.Act).Permit(context.Background(), policy.Request{Action: action.Action{Kind: action.Hover, Target: "e2"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Do(context.Background(), p, action.Action{Kind: action.Click, Target: "e2"}, &tree.Node{Ref: "e2"}, nil); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("a hover permit clicked: %v", err)
	}
}

func TestStaleRetriedOnce(t *testing.T) {
	src := &fakeSource{stale: 1}
	s := New(src, policy.New(action.Act), Options{})
	if _, err := runStep(t, s, `click e2`); err != nil {
		t.Fatalf("one stale read should be retried: %v", err)
	}
	src.stale = 2
	_, err := runStep(t, s, `click e2`)
	if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), `cannot click checkbox "Remember me" e2 checked: it is gone from the page`) {
		t.Errorf("twice stale: %v", err)
	}
}

func TestDisabledAndMissing(t *testing.T) {
	s := New(&fakeSource{}, policy.New(action.Act), Options{})
	_, err := runStep(t, s, `click e3`)
	var ae *ActionError
	if !errors.As(err, &ae) || err.Error() != `cannot click button "Gone" e3 disabled: it is disabled` {
		t.Errorf("disabled: %v", err)
	}
	_, err = runStep(t, s, `click role:button name:"Sign on"`)
	if err == nil || !strings.Contains(err.Error(), `closest: button "Sign in" e1`) {
		t.Errorf("no match: %v", err)
	}
	_, err = runStep(t, s, `click role:button`)
	if err == nil || !strings.Contains(err.Error(), "2 elements match") {
		t.Errorf("ambiguous: %v", err)
	}
}

func TestBatchStopsAtFailure(t *testing.T) {
	s := New(&fakeSource{}, policy.New(action.Act), Options{})
	r, err := runStep(t, s, `click e2; click role:button name:Nope; click e2`)
	var se *StepError
	if !errors.As(err, &se) || se.Step != 2 {
		t.Fatalf("batch: %v", err)
	}
	if !strings.Contains(r.Text, "not checked → checked") {
		t.Errorf("the diff so far is missing: %q", r.Text)
	}
	r, err = runStep(t, s, `click e2; click e2`)
	if err != nil || r.Text != "no change\n" {
		t.Errorf("two toggles in one batch: %q %v", r.Text, err)
	}
}
