package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/doctor"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/vdesk"
)

// demoEditor is the text editor the desktop demo opens the saved file in.
const demoEditor = "mousepad"

// demoFile is the name the desktop demo saves the download under.
const demoFile = "q3-report.txt"

// desktopStartTimeout caps bringing up the virtual desktop.
const desktopStartTimeout = 30 * time.Second

// missingError is what the machine lacks for the desktop demo: an
// environment problem (exit code 2) worded for the user.
type missingError struct{ msg string }

func (e missingError) Error() string { return e.msg }
func (e missingError) Unwrap() error { return vdesk.ErrEnvironment }

// desktopDemoNeeds reports, as one error, what the desktop demo needs and
// does not find on $PATH: Xvfb and dbus-daemon for the desktop, the
// editor, and the browser.
func desktopDemoNeeds(chromium string) error {
	// The programs it starts besides the browser, with the Debian
	// package of each: the virtual desktop's servers and the editor.
	programs := [...]struct{ bin, pkg string }{
		{"Xvfb", "xvfb"},
		{"dbus-daemon", "dbus"},
		{demoEditor, demoEditor},
	}
	var bins, pkgs, problems []string
	for _, p := range programs {
		if _, err := exec.LookPath(p.bin); err != nil {
			bins, pkgs = append(bins, p.bin), append(pkgs, p.pkg)
		}
	}
	if len(bins) > 0 {
		problems = append(problems, fmt.Sprintf("%s not found (install: apt-get install %s)",
			strings.Join(bins, ", "), strings.Join(pkgs, " ")))
	}
	if _, err := browser.FindExec(chromium); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) == 0 {
		return nil
	}
	return missingError{"the desktop demo cannot run on this machine: " + strings.Join(problems, "; ")}
}

// desktopScenes are the scenes of `canopy demo --desktop`: a page with a
// download link, the browser's Save dialog, and the saved file in an
// editor. The selectors hold whoever draws the dialog (the desktop portal
// or the browser itself) and whatever it is titled.
func desktopScenes(downloads string) []scene {
	return []scene{
		{"A page, in a headful Chromium on the desktop: its tree is part of the desktop's.", downloadPage},
		{"The download opens the browser's native Save dialog: one more window, driven like the page.", saveDialog},
		{"The saved file in a text editor, and the editor's window as an agent reads it.",
			func(ctx context.Context, d *demoRun) error { return editor(ctx, d, filepath.Join(downloads, demoFile)) }},
	}
}

// downloadPage loads the demo site's download page.
func downloadPage(ctx context.Context, d *demoRun) error {
	_, err := d.step(ctx, "navigate "+stepQuote(d.site.URL("/download.html")))
	return err
}

// saveDialog clicks the download link, names the file in the Save dialog
// and saves it. When the click settled before the dialog was drawn, a wait
// step waits for it.
func saveDialog(ctx context.Context, d *demoRun) error {
	r, err := d.step(ctx, `click role:link name:"Download report"`)
	if err != nil {
		return err
	}
	if !hasLine(r.Text, "opened dialog ") {
		if _, err := d.step(ctx, `wait role:dialog state:modal`); err != nil {
			return err
		}
	}
	return d.steps(ctx,
		`type role:dialog >> role:textbox name:Name `+stepQuote(demoFile)+` clear`,
		`click role:dialog >> role:button name:Save`,
	)
}

// editor opens the file at path in the editor and prints the editor's
// snapshot.
func editor(ctx context.Context, d *demoRun, path string) error {
	return d.steps(ctx,
		"open_app "+demoEditor+" "+stepQuote(path),
		"snapshot app:"+demoEditor,
	)
}

// runDesktopDemo brings up a virtual desktop, points this process's
// environment at it (the browser and the apps started inherit it), checks
// it has what the demo needs (as canopy doctor does), and plays the
// desktop scenes on it. The desktop, and every app started on it, go down
// when the demo ends, and the environment comes back.
func runDesktopDemo(ctx context.Context, f demoFlags, stdout, stderr io.Writer) error {
	if err := desktopDemoNeeds(f.chromium); err != nil {
		return err
	}
	s, err := site.Serve(ctx)
	if err != nil {
		return fmt.Errorf("serve the demo site: %w: %w", err, browser.ErrEnvironment)
	}
	defer s.Close()
	log := desktopLogger(stderr, f.verbose)
	upCtx, cancel := context.WithTimeout(ctx, desktopStartTimeout)
	desk, err := vdesk.Up(upCtx, vdesk.Options{Logger: log})
	cancel()
	if err != nil {
		return fmt.Errorf("bring up a virtual desktop: %w", err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), desktopStartTimeout)
		defer cancel()
		if err := desk.Down(ctx); err != nil {
			fmt.Fprintf(stderr, "canopy: stop the virtual desktop: %v\n", err)
		}
	}()
	restore := desk.Apply()
	defer restore()
	fmt.Fprintf(stderr, "canopy: started a virtual desktop on %s (stopped when the demo ends)\n", desk.Display())
	if rep := doctor.Run(ctx, doctor.Options{Chromium: f.chromium}); !rep.OK() {
		for _, c := range rep.Problems() {
			if c.Skipped {
				continue
			}
			line := fmt.Sprintf("canopy: %s: %s", c.Name, c.Detail)
			if c.Fix != "" {
				line += " — fix: " + c.Fix
			}
			fmt.Fprintln(stderr, line)
		}
		return fmt.Errorf("the virtual desktop lacks what the demo needs (canopy doctor checks it): %w", rep.Err())
	}

	downloads, err := os.MkdirTemp("", "canopy-demo-")
	if err != nil {
		return fmt.Errorf("make the downloads folder: %w", err)
	}
	defer os.RemoveAll(downloads)
	cfg := canopy.Config{Desktop: true, Browser: f.options(stderr)}
	cfg.Browser.AskDownloads, cfg.Browser.DownloadDir = true, downloads
	cfg.Session.Logger, cfg.Session.Surface = cfg.Browser.Logger, "cli"
	d, err := openDemo(ctx, cfg, s, f.full, stdout)
	if err != nil {
		return err
	}
	defer d.sess.Close()
	return d.play(ctx, desktopScenes(downloads))
}

// hasLine reports whether a line of text starts with prefix.
func hasLine(text, prefix string) bool {
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// stepQuote quotes s as an argument of a step ("…", with \" \\ \n
// escapes).
func stepQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
