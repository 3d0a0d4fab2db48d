package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/peterh/liner"
	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/shell"
)

type shFlags struct {
	browserFlags
	policyFlags
	command string
	open    string
	desktop bool
}

func newShCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f shFlags
	cmd := &cobra.Command{
		Use:   "sh [FILE]",
		Short: "The tree as a filesystem: a shell over pages and the desktop",
		Long: `Run canopy's shell (docs/shell.md): tabs and nodes are folders named by role
and name (form:Login, button:Edit@e14), looked at with ls, cd, pwd, tree, cat,
grep, find and text, and acted on with every action by its step name (click,
type, submit, back…), each answering with what changed. Commands compose with
';' and newlines (the first error stops the run and names its line), pipes
into grep, head, tail and wc, for … do … done, each tab, and saved scripts.

With no FILE and a terminal, an interactive shell with history and completion
of commands and paths (Tab); Ctrl-C stops the running command, Ctrl-D leaves.
-c runs one string; FILE (or - for standard input) runs a script.`,
		Example: `  canopy sh --open http://127.0.0.1:8080/login
  canopy sh -c 'open "http://127.0.0.1:8080/login"; cd form:Login; ls'
  canopy sh tasks.sh
  canopy sh --desktop -c 'ls /apps'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.command != "" && len(args) > 0 {
				return fmt.Errorf("give -c or a FILE, not both")
			}
			src, interactive, err := shSource(f.command, args, stdin)
			if err != nil {
				return err
			}
			return runSh(cmd.Context(), f, src, interactive, stdout, stderr)
		},
	}
	f.register(cmd)
	f.registerPolicy(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&f.command, "command", "c", "", "run these commands and exit")
	fl.StringVar(&f.open, "open", "", "load this URL first")
	fl.BoolVar(&f.desktop, "desktop", false, "the desktop ($DISPLAY) with its apps and windows; a browser starts headful on it when a command needs one")
	return cmd
}

// shSource returns the script to run, or interactive when the shell
// should read a terminal line by line.
func shSource(command string, args []string, stdin io.Reader) (src string, interactive bool, err error) {
	switch {
	case command != "":
		return command, false, nil
	case len(args) == 1 && args[0] != "-":
		b, err := os.ReadFile(args[0])
		if err != nil {
			return "", false, fmt.Errorf("read the script: %w", err)
		}
		return string(b), false, nil
	case len(args) == 0 && isTerminal(stdin):
		return "", true, nil
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		return "", false, fmt.Errorf("read the script from standard input: %w", err)
	}
	return string(b), false, nil
}

// isTerminal reports whether r is a terminal (a character device).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runSh opens the session and runs the script, or the REPL.
func runSh(ctx context.Context, f shFlags, src string, interactive bool, stdout, stderr io.Writer) error {
	cfg, err := sessionConfig(f.browserFlags, f.policyFlags, f.desktop, stderr)
	if err != nil {
		return err
	}
	cfg.Session.Surface = "shell"
	sess, err := canopy.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer sess.Close()
	defer noteDownloads(sess, stderr)
	if f.open != "" {
		if _, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: f.open, Timeout: browser.DefaultLoadTimeout}); err != nil {
			return err
		}
	}
	sh := shell.New(sess.Session, shell.Options{})
	if !interactive {
		return sh.Run(ctx, src, stdout)
	}
	return repl(ctx, sh, stdout, stderr)
}

// repl reads commands from the terminal until Ctrl-D. A command that
// fails prints its error and the shell goes on; Ctrl-C stops the command
// running (the session lives on) or clears the line being typed.
//
// Ctrl-C is the shell's own for as long as it runs. The caller's ctx may
// end on the same SIGINT (canopy's main ends it on SIGINT and SIGTERM),
// so the shell runs on a context of its own, which keeps ctx's values and
// ends on SIGTERM. A Ctrl-C that comes after a line was read stops that
// command; one that comes while no command runs stops nothing.
func repl(ctx context.Context, sh *shell.Shell, stdout, stderr io.Writer) error {
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	ctx, stopTerm := signal.NotifyContext(context.WithoutCancel(ctx), syscall.SIGTERM)
	defer stopTerm()

	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetTabCompletionStyle(liner.TabPrints)
	ln.SetWordCompleter(func(line string, pos int) (string, []string, string) {
		return sh.Complete(ctx, line, pos)
	})
	hist := historyFile()
	if r, err := os.Open(hist); err == nil {
		ln.ReadHistory(r)
		r.Close()
	}
	defer saveHistory(ln, hist)
	fmt.Fprintln(stdout, "canopy shell: help lists the commands; Ctrl-D leaves.")
	for {
		select { // a Ctrl-C from before this prompt
		case <-interrupts:
		default:
		}
		src, err := readCommand(ln, prompt(sh))
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(stdout)
			return nil
		case err != nil:
			return fmt.Errorf("read the command: %w", err)
		}
		if strings.TrimSpace(src) == "" {
			continue
		}
		ln.AppendHistory(strings.ReplaceAll(src, "\n", "; "))
		runCtx, stop := context.WithCancel(ctx)
		ran := make(chan struct{})
		go func() {
			select {
			case <-interrupts:
				stop()
			case <-ran:
			}
		}()
		err = sh.Run(runCtx, src, stdout)
		interrupted := runCtx.Err() != nil && ctx.Err() == nil
		close(ran)
		stop()
		switch {
		case interrupted:
			fmt.Fprintln(stderr, "^C stopped; the session goes on")
		case err != nil:
			fmt.Fprintln(stderr, "canopy:", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// readCommand reads one command, with more lines while it is incomplete
// (an open quote, a loop without done).
func readCommand(ln *liner.State, p string) (string, error) {
	src, err := ln.Prompt(p)
	for err == nil && shell.Incomplete(src) {
		var more string
		if more, err = ln.Prompt("> "); err == nil {
			src += "\n" + more
		} else if errors.Is(err, io.EOF) {
			// Ctrl-D on a continuation line drops the command, not the
			// shell.
			return "", liner.ErrPromptAborted
		}
	}
	return src, err
}

// prompt shows the working folder.
func prompt(sh *shell.Shell) string {
	if cwd := sh.Cwd(); cwd != "" {
		return "canopy:" + cwd + "$ "
	}
	return "canopy$ "
}

// historyFile is where the REPL keeps its history: canopy/sh_history in
// the user's cache folder.
func historyFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "canopy", "sh_history")
}

func saveHistory(ln *liner.State, path string) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
		ln.WriteHistory(f)
		f.Close()
	}
}
