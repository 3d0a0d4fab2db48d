package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/shell"
	"github.com/canopy-dev/canopy/tokens"
	"github.com/canopy-dev/canopy/tree"
)

// demoFlags are `canopy demo`'s flags.
type demoFlags struct {
	browserFlags
	pages   []string
	full    bool
	desktop bool
}

func newDemoCmd(stdout, stderr io.Writer) *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show what canopy does, on a small demo site embedded in canopy",
		Long: `Serve canopy's demo site on 127.0.0.1 (and 127.0.0.2 for cross-site frames),
launch a headless Chromium, and show what an agent sees: the login page's
snapshot, then a few actions in canopy do's step syntax, each answered with
what it changed. A line of figures follows each: bytes, o200k tokens,
milliseconds.

With --page, print only the snapshots of the pages named.

With --desktop, bring up a virtual desktop (Xvfb, a private D-Bus session
bus, AT-SPI), run a headful Chromium on it, and drive the flow no page tool
can: a download link, the browser's native Save dialog, and the saved file
in a text editor (mousepad). Needs Xvfb, dbus-daemon, at-spi2-core and
mousepad (canopy doctor says what is missing).`,
		Example: `  canopy demo
  canopy demo --page /shadow.html --page /frames.html --full
  canopy demo --desktop`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.desktop {
				if len(f.pages) > 0 {
					return fmt.Errorf("--page shows pages of the browser demo; give it without --desktop")
				}
				if f.cdp != "" {
					return fmt.Errorf("--desktop starts its own browser on the virtual desktop; give --cdp without --desktop")
				}
				return runDesktopDemo(cmd.Context(), f, stdout, stderr)
			}
			return runDemo(cmd.Context(), f, stdout, stderr)
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.pages, "page", nil, "print only the snapshot of this page of the demo site, repeatable (/ lists them all)")
	fl.BoolVar(&f.full, "full", false, "print whole snapshots, no budget")
	fl.BoolVar(&f.desktop, "desktop", false, "run the download → Save dialog → editor flow on a virtual desktop canopy brings up")
	return cmd
}

// demoRun is one run of the demo: its session, the demo site, and where
// it prints.
type demoRun struct {
	sess *canopy.Session
	site *site.Site
	tok  *tokens.Counter
	out  io.Writer
	full bool
	// first says no step of the current scene has printed yet.
	first bool
}

// scene is a part of the demo. The scenes of a run share its session
// and run in order; each prints its caption, then what it shows.
type scene struct {
	caption string
	run     func(ctx context.Context, d *demoRun) error
}

// browserScenes are the scenes of `canopy demo`: a page as an agent
// reads it, then actions answered with what they changed, then the same
// session as a filesystem in the shell.
func browserScenes() []scene {
	return []scene{
		{"The page as an agent reads it: one line per node, refs (e2) to act on.", loginSnapshot},
		{"Each action is a step of `canopy do`, answered with what it changed.", loginActions},
		{"The same session as a filesystem: `canopy sh` (and the MCP shell tool).", shellScene},
	}
}

// shellScene looks around the page the actions left, then collects the
// links of a nav across three pages in one loop.
func shellScene(ctx context.Context, d *demoRun) error {
	sh := shell.New(d.sess.Session, shell.Options{})
	return d.shell(ctx, sh,
		"ls",
		"cd form:Login; ls; cat 'checkbox:Remember me'",
		"grep -r Welcome /tab1",
		"for p in "+d.site.URL("/guide-1.html")+" "+d.site.URL("/guide-2.html")+" "+d.site.URL("/guide-3.html")+
			"; do open $p | head -n 1; find role:navigation >> role:link; done",
	)
}

// shell runs shell commands, each printed as typed after `sh> `, then its
// output and a line of figures.
func (d *demoRun) shell(ctx context.Context, sh *shell.Shell, srcs ...string) error {
	for _, src := range srcs {
		if !d.first {
			fmt.Fprintln(d.out)
		}
		d.first = false
		fmt.Fprintf(d.out, "sh> %s\n", src)
		var b strings.Builder
		start := time.Now()
		err := sh.Run(ctx, src, &b)
		io.WriteString(d.out, b.String())
		if err != nil {
			return fmt.Errorf("the demo's shell command %q: %w", src, err)
		}
		fmt.Fprintf(d.out, "── %d bytes, %d o200k tokens, %d ms\n", b.Len(), d.tok.Count(b.String()), time.Since(start).Milliseconds())
	}
	return nil
}

// loginSnapshot loads the demo site's login page and prints its snapshot.
func loginSnapshot(ctx context.Context, d *demoRun) error {
	return d.page(ctx, "/login.html")
}

// loginActions fills in the login form and submits it.
func loginActions(ctx context.Context, d *demoRun) error {
	return d.steps(ctx,
		`type role:textbox name:Email "ada@example.com"`,
		`type role:textbox name:Password "correct horse"`,
		`check role:checkbox name:"Remember me"`,
		`click role:button name:"Sign in"`,
	)
}

// runDemo serves the demo site, opens a session on a headless browser and
// plays the browser scenes; with --page, it prints those pages' snapshots
// instead.
func runDemo(ctx context.Context, f demoFlags, stdout, stderr io.Writer) error {
	s, err := site.Serve(ctx)
	if err != nil {
		return fmt.Errorf("serve the demo site: %w: %w", err, browser.ErrEnvironment)
	}
	defer s.Close()
	cfg := canopy.Config{Browser: f.options(stderr)}
	cfg.Session.Logger, cfg.Session.Surface = cfg.Browser.Logger, "cli"
	d, err := openDemo(ctx, cfg, s, f.full, stdout)
	if err != nil {
		return err
	}
	defer d.sess.Close()
	if len(f.pages) > 0 {
		for i, p := range f.pages {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			if err := d.page(ctx, p); err != nil {
				return err
			}
		}
		return nil
	}
	return d.play(ctx, browserScenes())
}

// openDemo opens the demo's session.
func openDemo(ctx context.Context, cfg canopy.Config, s *site.Site, full bool, out io.Writer) (*demoRun, error) {
	tok, err := tokens.New()
	if err != nil {
		return nil, err
	}
	sess, err := canopy.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &demoRun{sess: sess, site: s, tok: tok, out: out, full: full}, nil
}

// play runs the scenes in order, a blank line between them; the first
// that fails stops the run.
func (d *demoRun) play(ctx context.Context, scenes []scene) error {
	for i, sc := range scenes {
		if i > 0 {
			fmt.Fprintln(d.out)
		}
		fmt.Fprintf(d.out, "# %s\n\n", sc.caption)
		d.first = true
		if err := sc.run(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// page loads a page of the demo site and prints its snapshot and a line of
// figures: nodes, bytes, o200k tokens, milliseconds.
func (d *demoRun) page(ctx context.Context, path string) error {
	r, err := d.sess.Run(ctx, action.Action{Kind: action.Navigate, URL: d.site.URL(path)})
	if err != nil {
		return err
	}
	snap, err := d.sess.Model(ctx, action.Action{Kind: action.Snapshot, Full: d.full})
	if err != nil {
		return err
	}
	snap.Header.Notes = append(snap.Header.Notes, loadNotes(r.Outcomes)...)
	st := d.sess.Browser().LastStats()
	text := tree.Format(snap, tree.Options{Full: d.full})
	io.WriteString(d.out, text)
	fmt.Fprintf(d.out, "── %d nodes (%d raw from %d frames in %d processes), %d bytes, %d o200k tokens, snapshot %d ms (CDP %d ms)\n",
		st.Nodes, st.AXNodes, st.Frames, st.Targets, len(text), d.tok.Count(text),
		st.WallTime.Milliseconds(), st.CDPTime.Milliseconds())
	return nil
}

// steps runs each of srcs (see step).
func (d *demoRun) steps(ctx context.Context, srcs ...string) error {
	for _, src := range srcs {
		if _, err := d.step(ctx, src); err != nil {
			return err
		}
	}
	return nil
}

// step runs src, one step in `canopy do`'s syntax: it prints the step as
// a user types it, runs it, and prints its reply and a line of figures:
// bytes, o200k tokens, milliseconds in all and settling. Steps of a scene
// are a blank line apart.
func (d *demoRun) step(ctx context.Context, src string) (session.Reply, error) {
	acts, err := action.ParseSteps(src)
	if err != nil {
		return session.Reply{}, fmt.Errorf("the demo's step %q: %w", src, err)
	}
	if len(acts) != 1 {
		return session.Reply{}, fmt.Errorf("the demo's step %q holds %d steps, want one", src, len(acts))
	}
	if !d.first {
		fmt.Fprintln(d.out)
	}
	d.first = false
	fmt.Fprintf(d.out, "$ %s\n", src)
	r, err := d.sess.Run(ctx, acts[0])
	if err != nil {
		return r, fmt.Errorf("%s: %w", src, err)
	}
	text := r.Text
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	io.WriteString(d.out, text)
	fmt.Fprintf(d.out, "── %d bytes, %d o200k tokens, %d ms (settle %d ms)\n",
		len(r.Text), d.tok.Count(r.Text), r.Timing.Total.Milliseconds(), r.Timing.Settle.Milliseconds())
	return r, nil
}
