package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/desktop"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/vdesk"
	"github.com/canopy-dev/canopy/workspace"
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
	log := f.options(stderr).Logger
	d, err := desktop.Open(ctx, desktop.Options{Logger: log})
	if err != nil {
		return err
	}
	defer d.Close()
	snap, err := d.Snapshot(ctx, f.full)
	if err != nil {
		return err
	}
	if f.scope != "" {
		sel, err := selector.Parse(f.scope)
		if err != nil {
			return err
		}
		n, _, err := selector.Resolve([]*tree.Snapshot{snap}, sel)
		if err != nil {
			return err
		}
		snap = session.Scoped(snap, n)
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", " ")
		return enc.Encode(snap)
	}
	_, err = io.WriteString(stdout, tree.Format(snap, tree.Options{Budget: f.budget, Full: f.full}))
	return err
}

// runDesktopDo runs steps on the desktop, with a browser that starts
// headful on it when a step needs one. Apps the steps opened are closed at
// the end.
func runDesktopDo(ctx context.Context, steps []action.Action, f doFlags, stdout, stderr io.Writer) error {
	rules, err := f.rules()
	if err != nil {
		return err
	}
	ws, err := workspace.Open(ctx, f.options(stderr))
	if err != nil {
		return err
	}
	defer ws.Close()
	t, err := tier(f.cdp == "", f.allow)
	if err != nil {
		return err
	}
	log, err := f.openAudit()
	if err != nil {
		return err
	}
	defer log.Close()
	sess := session.New(ws, policy.New(t, rules...), session.Options{Logger: f.options(stderr).Logger, Audit: log, Surface: "cli"})
	return runSteps(ctx, sess, steps, f, stdout)
}
