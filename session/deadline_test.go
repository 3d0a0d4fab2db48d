package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// hugePage is a page read on demand whose whole read takes longer than
// any call: it answers only when the call ends.
type hugePage struct{}

func (hugePage) Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error) {
	if full {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	root := &tree.Node{Role: tree.RoleDocument, Children: []*tree.Node{
		{Role: "table", Name: "Users", Ref: "e1", Key: "k1", Unread: 119000},
	}}
	return &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "Users"}, Root: root}, nil
}

func (hugePage) Watch(ctx context.Context) (Watcher, error) {
	return fakeWatch{make(chan settle.Event)}, nil
}

func (hugePage) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (Output, error) {
	return Output{}, errors.New("no target should have been found")
}

// TestTargetOutOfTime: a target that is not in the part of a huge page
// read so far, looked for in the whole page until the call's deadline,
// says the call ran out of time, not that nothing matches.
func TestTargetOutOfTime(t *testing.T) {
	s := New(hugePage{}, policy.New(action.Act), Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := s.Run(ctx, action.Action{Kind: action.Click, Target: `role:link name:"Edit User 5000"`})
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "ran out of time") || strings.Contains(err.Error(), "no element matches") {
		t.Errorf("err = %v, want one saying the call ran out of time", err)
	}
}
