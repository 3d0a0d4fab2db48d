package session

import (
	"context"
	"fmt"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// A PointMapper is a source whose tree is not in the units points come in:
// a page's boxes are in its document's layout pixels, while a point is in
// the viewport's CSS pixels, as a screenshot shows the page. On the desktop
// both are screen pixels and no mapping is needed.
type PointMapper interface {
	TreePoint(ctx context.Context, x, y float64) (float64, float64, error)
}

// A BoxReader is a source whose snapshots may hold boxes older than their
// nodes: a page's tree updated in the parts that changed keeps the boxes of
// the rest, which the change may have moved. SnapshotBoxes reads with
// every box current, for finding the node at a point.
type BoxReader interface {
	SnapshotBoxes(ctx context.Context) (*tree.Snapshot, error)
}

// pointTarget makes a point stand for the node there: its ref becomes the
// action's target, so the gate, the checks and the reply treat it like any
// target. a.At stays: click and hover act at the point itself.
func (s *Session) pointTarget(ctx context.Context, snap *tree.Snapshot, a action.Action) (action.Action, *tree.Node, error) {
	if a.At == "" || snap == nil {
		return a, nil, nil
	}
	x, y, err := a.Point()
	if err != nil {
		return a, nil, err
	}
	if br, ok := s.src.(BoxReader); ok {
		if snap, err = br.SnapshotBoxes(ctx); err != nil {
			return a, nil, fmt.Errorf("read the page's boxes: %w", err)
		}
	}
	tx, ty := x, y
	if m, ok := s.src.(PointMapper); ok {
		if tx, ty, err = m.TreePoint(ctx, x, y); err != nil {
			return a, nil, fmt.Errorf("place the point %s on the page: %w", a.At, err)
		}
	}
	n := tree.At(snap.Root, tx, ty)
	if n == nil {
		return a, nil, fmt.Errorf("no element at %s: nothing with a ref is there%s", a.At, viewSize(snap.Root))
	}
	a.Target = n.Ref
	return a, n, nil
}

// viewSize says how big the view is, to place a point that missed.
func viewSize(root *tree.Node) string {
	if root == nil || root.Bounds == nil {
		return ""
	}
	return fmt.Sprintf(" (the view is %.0f×%.0f)", root.Bounds.W, root.Bounds.H)
}
