//go:build linux

package xinput

import "context"

// Drag presses the left button at x1,y1, moves to x2,y2 in a few steps (so
// toolkits see a drag start past their threshold) and releases there.
func (d *Display) Drag(ctx context.Context, x1, y1, x2, y2 int) error {
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if err := d.checkPoint(x1, y1); err != nil {
		return err
	}
	if err := d.checkPoint(x2, y2); err != nil {
		return err
	}
	return d.send(ctx, func(s *sender) error {
		s.move(x1, y1)
		s.button(byte(Left), true)
		const steps = 8
		for i := 1; i <= steps; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			s.move(x1+(x2-x1)*i/steps, y1+(y2-y1)*i/steps)
			// Each step is a round trip, so the application sees motion
			// events spread out rather than one jump.
			if err := d.sync(ctx); err != nil {
				return err
			}
		}
		s.button(byte(Left), false)
		return nil
	})
}
