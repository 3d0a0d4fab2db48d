// Package cli holds canopy's command-line commands (cobra). Each command
// parses flags, calls the library (browser, tree) and prints; no logic that a
// library user would also need lives here.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/desktop"
	"github.com/canopy-dev/canopy/doctor"
	"github.com/canopy-dev/canopy/vdesk"
)

// Exit codes (issue 2): 0 ok, 1 usage or input error, 2 environment problem.
const (
	ExitOK    = 0
	ExitInput = 1
	ExitEnv   = 2
)

// version is canopy's version, reported to MCP clients.
const version = "0.4.0"

// Main runs the canopy command line with args and returns the exit code.
// stdin is read by `canopy mcp` (the stdio transport).
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(stderr, "canopy:", err)
	return exitCode(err)
}

func exitCode(err error) int {
	if errors.Is(err, browser.ErrEnvironment) || errors.Is(err, vdesk.ErrEnvironment) ||
		errors.Is(err, vdesk.ErrNoDesktop) || errors.Is(err, desktop.ErrEnvironment) ||
		errors.Is(err, doctor.ErrProblems) {
		return ExitEnv
	}
	return ExitInput
}

// browserFlags are the flags every command that drives a browser takes.
type browserFlags struct {
	chromium  string
	cdp       string
	headful   bool
	args      []string
	verbose   bool
	downloads string
	popups    bool
	grant     []string
}

func (f *browserFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.chromium, "chromium", "", "browser binary (default: $CANOPY_CHROMIUM, chromium, chromium-browser, google-chrome)")
	fl.StringVar(&f.cdp, "cdp", "", "attach to a running browser at this CDP endpoint (http://host:port or ws://…)")
	fl.BoolVar(&f.headful, "headful", false, "show the browser window (needs a display)")
	fl.StringArrayVar(&f.args, "browser-arg", nil, "extra browser flag, repeatable (e.g. --browser-arg=--lang=de)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log CDP details to stderr")
	fl.BoolVar(&f.popups, "allow-popups", false, "let pages open windows by themselves (Chromium's popup blocker off); popups from clicks open either way")
	fl.StringSliceVar(&f.grant, "grant", nil, "permissions granted to every site from the start: geolocation,notifications,camera,microphone,clipboard…")
	fl.StringVar(&f.downloads, "downloads", "", `downloads folder, where screenshots and PDFs are saved too, or "ask" for the browser's own Save dialog (default: a session folder, removed when canopy ends)`)
}

func (f *browserFlags) options(stderr io.Writer) browser.Options {
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelDebug
	}
	o := browser.Options{
		Exec:        f.chromium,
		CDP:         f.cdp,
		Headful:     f.headful,
		Args:        f.args,
		Logger:      slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
		AllowPopups: f.popups,
		Grant:       f.grant,
		// A debug mode: every read the kept tree answers is checked
		// against a fresh one, and a difference fails it.
		DriftCheck: os.Getenv("CANOPY_DRIFT_CHECK") == "1",
	}
	if f.downloads == "ask" {
		o.AskDownloads = true
	} else {
		o.DownloadDir = f.downloads
	}
	return o
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "canopy",
		Short:         "One tool surface over web pages and the desktop, built on accessibility trees",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSnapshotCmd(stdout, stderr), newDoCmd(stdout, stderr), newShCmd(stdin, stdout, stderr), newDemoCmd(stdout, stderr), newMCPCmd(stdin, stdout, stderr),
		newDesktopCmd(stdout, stderr), newDoctorCmd(stdout, stderr))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (see %s --help)", err, c.CommandPath())
	})
	return root
}
