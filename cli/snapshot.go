package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
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
				return runSnapshot(cmd.Context(), "", f, stdout, stderr)
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
	fl.StringVar(&f.scope, "scope", "", "print only the subtree of this node: a ref (e12) or any selector (role:form, app:zenity)")
	fl.BoolVar(&f.desktop, "desktop", false, "print the desktop's tree (apps, windows, controls over AT-SPI on $DISPLAY) instead of a page")
	fl.IntVar(&f.budget, "budget", tree.DefaultBudget, "token budget of the snapshot")
	fl.BoolVar(&f.json, "json", false, "print the node model and timings as JSON")
	fl.DurationVar(&f.timeout, "timeout", browser.DefaultLoadTimeout, "how long to wait for the page to load")
	return cmd
}

// runSnapshot prints the snapshot the flags ask for: of url, of an
// attached browser's current tab, or of the desktop.
func runSnapshot(ctx context.Context, url string, f snapshotFlags, stdout, stderr io.Writer) error {
	cfg, err := sessionConfig(f.browserFlags, policyFlags{allow: f.allow}, f.desktop, stderr)
	if err != nil {
		return err
	}
	return printSnapshot(ctx, cfg, f, url, stdout, stderr)
}

// printSnapshot opens the session cfg names, loads url (when given) as a
// navigate step would, and prints the snapshot the flags ask for. The
// snapshot is a reading through the executor: the gate, the audit log and
// the credential mask apply as for any action.
func printSnapshot(ctx context.Context, cfg canopy.Config, f snapshotFlags, url string, stdout, stderr io.Writer) error {
	sess, err := canopy.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer sess.Close()
	var notes []string
	switch {
	case url != "":
		r, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: url, Timeout: f.timeout})
		if err != nil {
			return err
		}
		notes = loadNotes(r.Outcomes)
	case !cfg.Desktop:
		load, err := sess.Browser().WaitLoaded(ctx, f.timeout) // an attached tab may still be loading
		if err != nil {
			return err
		}
		if note := load.Note(); note != "" {
			notes = append(notes, note)
		}
	}
	snapCtx, cancelSnap := context.WithTimeout(ctx, 60*time.Second)
	defer cancelSnap()
	snap, err := sess.Model(snapCtx, action.Action{Kind: action.Snapshot, Target: f.scope, Full: f.full})
	if err != nil {
		return err
	}
	snap.Header.Notes = append(snap.Header.Notes, notes...)
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", " ")
		if b := sess.Browser(); b != nil && !cfg.Desktop {
			return enc.Encode(struct {
				*tree.Snapshot
				Stats browser.Stats `json:"stats"`
			}{snap, b.LastStats()})
		}
		return enc.Encode(snap)
	}
	_, err = io.WriteString(stdout, tree.Format(snap, tree.Options{Budget: f.budget, Full: f.full}))
	return err
}

// loadNotes picks the notes of an unfinished load out of a navigate's
// outcome lines, for the snapshot's header.
func loadNotes(outcomes []string) []string {
	var notes []string
	for _, o := range outcomes {
		if strings.HasPrefix(o, "(still loading") {
			notes = append(notes, strings.Trim(o, "()"))
		}
	}
	return notes
}
