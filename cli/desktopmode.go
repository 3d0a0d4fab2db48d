package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/canopy-dev/canopy/vdesk"
)

// ensureDisplay brings up a virtual desktop for this process when there is
// no display, and returns a func that takes it down again.
func ensureDisplay(ctx context.Context, stderr io.Writer, log *slog.Logger) (func(), error) {
	if os.Getenv("DISPLAY") != "" {
		return func() {}, nil
	}
	d, err := vdesk.Up(ctx, vdesk.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	restore := d.Apply()
	fmt.Fprintf(stderr, "canopy: no DISPLAY: started a virtual desktop on %s (stopped when canopy exits)\n", d.Display())
	return func() {
		restore()
		_ = d.Down(context.WithoutCancel(ctx))
	}, nil
}
