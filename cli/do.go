package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/save"
	"github.com/canopy-dev/canopy/session"
)

type doFlags struct {
	browserFlags
	policyFlags
	json    bool
	timeout time.Duration
	desktop bool
}

func newDoCmd(stdout, stderr io.Writer) *cobra.Command {
	var f doFlags
	cmd := &cobra.Command{
		Short: "Load a page, run steps on it and print what each step changed",
		Long: `Load a page in a fresh browser, run steps on it, and print each step's diff:
what the step changed, keyed by ref (docs/diffs.md). A step that changes nothing
prints "no change". Steps are separated by ';' or newlines:

  ACTION [SELECTOR] ["ARG"…] [FLAG…]

A quoted string after whitespace is an argument, never part of the selector
(name:"Sign in" is a selector value; "a@b.c" after a space is the text).
Actions (TARGET is a selector or a ref):

` + action.StepHelp() + `
The diffs go to stdout, nothing else; errors go to stderr and the exit code
is non-zero. The first failing step stops the run.`,
		Use: "do URL 'STEP; STEP…' | do --desktop 'STEP; STEP…'",
		Example: `  canopy do http://127.0.0.1:8080/login 'type role:textbox name:Email "a@b.c"; click role:button name:"Sign in"'
  canopy do 127.0.0.1:8080/todo 'type role:textbox "milk" submit; check role:checkbox nth:1'
  canopy do 127.0.0.1:8080/table 'click role:row name~:"User 0042" >> role:button name:Edit' --json
  canopy do --desktop 'open_app zenity "--entry"; type app:zenity >> role:textbox "milk"; click app:zenity >> role:button name:OK'`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.desktop != (len(args) == 1) {
				return fmt.Errorf("give a URL and the steps, or --desktop and the steps")
			}
			steps, err := action.ParseSteps(args[len(args)-1])
			if err != nil {
				return err
			}
			url := ""
			if !f.desktop {
				url = args[0]
			}
			return runDo(cmd.Context(), url, steps, f, stdout, stderr)
		},
	}
	f.register(cmd)
	f.registerPolicy(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&f.desktop, "desktop", false, "run the steps on the desktop ($DISPLAY): open_app, windows, dialogs; navigate starts a headful browser on it")
	fl.BoolVar(&f.json, "json", false, "print one JSON object per step (text, outcomes, timings)")
	fl.DurationVar(&f.timeout, "timeout", browser.DefaultLoadTimeout, "how long to wait for the page to load")
	return cmd
}

// stepJSON is one line of `canopy do --json`.
type stepJSON struct {
	Step   int    `json:"step"`
	Action string `json:"action"`
	session.Reply
	Error string `json:"error,omitempty"`
	Image string `json:"image,omitempty"` // where a screenshot was written
}

// runDo opens the session (on the desktop with --desktop, where a browser
// starts headful when a step needs one), loads url when given, and runs
// the steps.
func runDo(ctx context.Context, url string, steps []action.Action, f doFlags, stdout, stderr io.Writer) error {
	cfg, err := sessionConfig(f.browserFlags, f.policyFlags, f.desktop, stderr)
	if err != nil {
		return err
	}
	sess, err := canopy.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer sess.Close()
	defer noteDownloads(sess, stderr)
	// The page the command opens with loads as a navigate step would:
	// through the gate (javascript:, file: … need sensitive) and into the
	// audit log. Its reply is not printed: the steps' diffs are.
	if url != "" {
		if _, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: url, Timeout: f.timeout}); err != nil {
			return err
		}
	}
	return runSteps(ctx, sess.Session, steps, f, stdout)
}

// runSteps runs steps one by one, printing each reply (or its JSON line);
// the first failure stops the run.
func runSteps(ctx context.Context, sess *session.Session, steps []action.Action, f doFlags, stdout io.Writer) error {
	enc := json.NewEncoder(stdout)
	for i, st := range steps {
		if st.Kind == action.Screenshot && st.Path == "" {
			// canopy do shows no images: the PNG is a file in the
			// downloads folder, which the executor saves and names.
			st.Path = save.ScreenshotName
		}
		r, err := sess.Run(ctx, st)
		img := ""
		if st.Kind == action.Screenshot {
			img = r.File
		}
		if f.json {
			line := stepJSON{Step: i + 1, Action: st.String(), Reply: r, Image: img}
			if err != nil {
				line.Error = err.Error()
			}
			if eerr := enc.Encode(line); eerr != nil {
				return eerr
			}
		} else if r.Text != "" {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			if _, werr := io.WriteString(stdout, r.Text); werr != nil {
				return werr
			}
		}
		if err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, st, err)
		}
	}
	return nil
}

// noteDownloads says, when the command ends, that the files in the
// session's downloads folder go with it, when canopy made the folder
// (no --downloads): a screenshot or PDF the steps saved is there.
func noteDownloads(sess *canopy.Session, stderr io.Writer) {
	dir, temporary := sess.Downloads()
	if !temporary {
		return
	}
	if files, err := os.ReadDir(dir); err == nil && len(files) > 0 {
		fmt.Fprintf(stderr, "canopy: the files in the session's downloads folder %s are removed with it now; give --downloads DIR to keep them\n", dir)
	}
}
