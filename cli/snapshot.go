package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

type snapshotFlags struct {
	browserFlags
	allow   string
	full    bool
	scope   string
	budget  int
	json    bool
	timeout time.Duration
	desktop bool
}

func newSnapshotCmd(stdout, stderr io.Writer) *cobra.Command {
	var f snapshotFlags
	cmd := &cobra.Command{
		Use:   "snapshot [URL]",
		Short: "Print a page's accessibility tree as compact text",
		Long: `Print a page's accessibility tree — every frame, cross-site frame and shadow
root in one tree — as compact text within a token budget.

With a URL, canopy launches a headless Chromium with a fresh profile and loads
it. With --cdp and no URL, it reads the current tab of a running browser.`,
		Example: `  canopy snapshot https://example.com
  canopy snapshot http://127.0.0.1:8080/users --budget 2000
  canopy snapshot http://127.0.0.1:8080/users --scope e12 --full
  canopy snapshot --cdp http://127.0.0.1:9222
  canopy snapshot --desktop --scope 'role:dialog state:modal'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			url := ""
			if len(args) == 1 {
				url = args[0]
			}
			if f.desktop {
				if url != "" {
					return fmt.Errorf("--desktop reads the desktop: give no URL")
				}
				return runDesktopSnapshot(cmd.Context(), f, stdout, stderr)
			}
			if url == "" && f.cdp == "" {
				return fmt.Errorf("give a URL, or --cdp to read the current tab of a running browser")
			}
			if f.budget < 0 {
				return fmt.Errorf("--budget must be positive, got %d", f.budget)
			}
			return runSnapshot(cmd.Context(), url, f, stdout, stderr)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&f.allow, "allow", "", allowHelp)
	fl := cmd.Flags()
	fl.BoolVar(&f.full, "full", false, "print everything: no budget, no elision")
	fl.StringVar(&f.scope, "scope", "", "print only the subtree of this ref (e.g. e12; with --desktop any selector, e.g. app:zenity)")
	fl.BoolVar(&f.desktop, "desktop", false, "print the desktop's tree (apps, windows, controls over AT-SPI on $DISPLAY) instead of a page")
	fl.IntVar(&f.budget, "budget", tree.DefaultBudget, "token budget of the snapshot")
	fl.BoolVar(&f.json, "json", false, "print the node model and timings as JSON")
	fl.DurationVar(&f.timeout, "timeout", browser.DefaultLoadTimeout, "how long to wait for the page to load")
	return cmd
}

func runSnapshot(ctx context.Context, url string, f snapshotFlags, stdout, stderr io.Writer) error {
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	b, err := browser.New(startCtx, f.options(stderr))
	if err != nil {
		return err
	}
	defer b.Close()
	var load browser.Load
	if url != "" {
		var t action.Tier
		if t, err = tier(b.Launched(), f.allow); err != nil {
			return err
		}
		if err = permitLoad(ctx, t, url); err != nil {
			return err
		}
		load, err = b.Navigate(ctx, url, f.timeout)
	} else {
		load, err = b.WaitLoaded(ctx, f.timeout) // an attached tab may still be loading
	}
	if err != nil {
		return err
	}
	snapCtx, cancelSnap := context.WithTimeout(ctx, 60*time.Second)
	defer cancelSnap()
	snap, stats, err := b.Snapshot(snapCtx, browser.SnapshotOptions{Full: f.full})
	if err != nil {
		return err
	}
	session.Redact(snap) // fields a canopy session typed a credential into
	if note := load.Note(); note != "" {
		snap.Header.Notes = append(snap.Header.Notes, note)
	}
	if f.scope != "" {
		if snap, err = scoped(snap, f.scope); err != nil {
			return err
		}
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", " ")
		return enc.Encode(struct {
			*tree.Snapshot
			Stats browser.Stats `json:"stats"`
		}{snap, stats})
	}
	_, err = io.WriteString(stdout, tree.Format(snap, tree.Options{Budget: f.budget, Full: f.full}))
	return err
}

// scoped narrows a snapshot to the subtree of ref; the node itself is the
// first line.
func scoped(s *tree.Snapshot, ref string) (*tree.Snapshot, error) {
	ref = strings.TrimPrefix(ref, "@")
	n := tree.FindRef(s.Root, ref)
	if n == nil {
		return nil, fmt.Errorf("no node %s on this page (refs are listed in a snapshot without --scope)", ref)
	}
	h := s.Header
	h.Notes = append(h.Notes, "scope "+ref)
	return &tree.Snapshot{Header: h, Root: &tree.Node{Role: tree.RoleDocument, Children: []*tree.Node{n}}}, nil
}
