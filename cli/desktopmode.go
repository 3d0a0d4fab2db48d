package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
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

// runDesktopSnapshot prints the desktop's tree, or the subtree a selector
// names.
func runDesktopSnapshot(ctx context.Context, f snapshotFlags, stdout, stderr io.Writer) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	cfg.Desktop = true
	cfg.Browser = f.options(stderr)
	cfg.Session.Logger = cfg.Browser.Logger
	return printSnapshot(ctx, cfg, f, "", stdout, stderr)
}

// runDesktopDo runs steps on the desktop, with a browser that starts
// headful on it when a step needs one.
func runDesktopDo(ctx context.Context, steps []action.Action, f doFlags, stdout, stderr io.Writer) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	cfg.Desktop = true
	cfg.Browser = f.options(stderr)
	cfg.Session.Logger = cfg.Browser.Logger
	sess, err := canopy.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer sess.Close()
	return runSteps(ctx, sess.Session, steps, f, stdout)
}
