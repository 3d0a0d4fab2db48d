package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/tokens"
	"github.com/canopy-dev/canopy/tree"
)

// demoPages are the pages `canopy demo` shows by default: a login form, and
// a page whose content sits in a cross-site (out-of-process) frame.
var demoPages = []string{"/login.html", "/cross.html"}

func newDemoCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		f     browserFlags
		pages []string
		full  bool
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Snapshot a small demo site embedded in canopy, served on 127.0.0.1",
		Long: `Serve canopy's demo site on 127.0.0.1 (and 127.0.0.2 for cross-site frames),
launch a headless Chromium, and print each page's snapshot followed by a line
of figures: nodes, bytes, o200k tokens, and milliseconds.`,
		Example: `  canopy demo
  canopy demo --page /shadow.html --page /frames.html --full`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(pages) == 0 {
				pages = demoPages
			}
			return runDemo(cmd.Context(), f, pages, full, stdout, stderr)
		},
	}
	f.register(cmd)
	cmd.Flags().StringArrayVar(&pages, "page", nil, "a page of the demo site to show, repeatable (default /login.html, /cross.html; / lists them all)")
	cmd.Flags().BoolVar(&full, "full", false, "print whole snapshots, no budget")
	return cmd
}

func runDemo(ctx context.Context, f browserFlags, pages []string, full bool, stdout, stderr io.Writer) error {
	s, err := site.Serve(ctx)
	if err != nil {
		return fmt.Errorf("serve the demo site: %w: %w", err, browser.ErrEnvironment)
	}
	defer s.Close()
	cfg := canopy.Config{Browser: f.options(stderr)}
	cfg.Session.Logger, cfg.Session.Surface = cfg.Browser.Logger, "cli"
	sess, err := canopy.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer sess.Close()
	tok, err := tokens.New()
	if err != nil {
		return err
	}
	for i, p := range pages {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		r, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: s.URL(p)})
		if err != nil {
			return err
		}
		snap, err := sess.Model(ctx, action.Action{Kind: action.Snapshot, Full: full})
		if err != nil {
			return err
		}
		snap.Header.Notes = append(snap.Header.Notes, loadNotes(r.Outcomes)...)
		st := sess.Browser().LastStats()
		text := tree.Format(snap, tree.Options{Full: full})
		io.WriteString(stdout, text)
		fmt.Fprintf(stdout, "── %d nodes (%d raw from %d frames in %d processes), %d bytes, %d o200k tokens, snapshot %d ms (CDP %d ms)\n",
			st.Nodes, st.AXNodes, st.Frames, st.Targets, len(text), tok.Count(text),
			st.WallTime.Milliseconds(), st.CDPTime.Milliseconds())
	}
	return nil
}
