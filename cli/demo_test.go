package cli

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/site"
)

// Figures lines: after a snapshot, and after each step's reply.
var (
	snapshotFigures = regexp.MustCompile(`^── \d+ nodes \(\d+ raw from \d+ frames in \d+ processes\), \d+ bytes, \d+ o200k tokens, snapshot \d+ ms \(CDP \d+ ms\)$`)
	stepFigures     = regexp.MustCompile(`^── \d+ bytes, \d+ o200k tokens, \d+ ms \(settle \d+ ms\)$`)
)

// demoStep is a step the demo printed: the step as typed, its reply, and
// the figures line after it.
type demoStep struct {
	src, reply, figures string
}

// demoScenes splits the demo's output into its scenes, each the text
// under its caption line ("# …").
func demoScenes(out string) []string {
	var scenes []string
	for l := range strings.Lines(out) {
		switch {
		case strings.HasPrefix(l, "# "):
			scenes = append(scenes, "")
		case len(scenes) > 0:
			scenes[len(scenes)-1] += l
		}
	}
	return scenes
}

// demoSteps reads the steps out of the demo's output: a "$ " line, the
// reply, and the figures line that ends it. A step without a figures line
// fails the test.
func demoSteps(t *testing.T, out string) []demoStep {
	t.Helper()
	var steps []demoStep
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		src, ok := strings.CutPrefix(lines[i], "$ ")
		if !ok {
			continue
		}
		st := demoStep{src: src}
		var reply []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "── "); i++ {
			reply = append(reply, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("step %q has no figures line:\n%s", src, out)
		}
		st.reply, st.figures = strings.Join(reply, "\n"), lines[i]
		steps = append(steps, st)
	}
	return steps
}

// checkSteps checks each step: it parses as a step of `canopy do`, its
// reply shows a change, and a figures line follows it.
func checkSteps(t *testing.T, steps []demoStep) {
	t.Helper()
	for _, st := range steps {
		if acts, err := action.ParseSteps(st.src); err != nil || len(acts) != 1 {
			t.Errorf("step %q does not parse as one step: %v", st.src, err)
		}
		if r := strings.TrimSpace(st.reply); r == "" || r == "no change" {
			t.Errorf("step %q: reply %q shows no change", st.src, st.reply)
		}
		if !stepFigures.MatchString(st.figures) {
			t.Errorf("step %q: figures line %q", st.src, st.figures)
		}
	}
}

// TestDemo: `canopy demo` prints the login page's snapshot with its
// figures, then each action as a step of `canopy do`, answered by a diff
// that shows what it changed, with its figures.
func TestDemo(t *testing.T) {
	code, out, errs := run(t, "demo")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errs, out)
	}
	if errs != "" {
		t.Errorf("stderr should be empty, got %q", errs)
	}
	scenes := demoScenes(out)
	if len(scenes) < 2 {
		t.Fatalf("%d scenes, want the snapshot and the actions at least:\n%s", len(scenes), out)
	}
	snap, figures, ok := strings.Cut(scenes[0], "\n── ")
	if !ok || !strings.HasPrefix(strings.TrimSpace(snap), `tab 1 "Acme login"`) || !strings.Contains(snap, `textbox "Email" e2`) {
		t.Fatalf("the first scene is not the login page's snapshot:\n%s", out)
	}
	if line := "── " + strings.TrimSpace(figures); !snapshotFigures.MatchString(line) {
		t.Errorf("snapshot figures line %q", line)
	}

	steps := demoSteps(t, scenes[1])
	checkSteps(t, steps)
	// What each step changed, in order: the step's action and target, and
	// a line of its diff.
	want := []struct{ step, change string }{
		{`type role:textbox name:Email`, `~ textbox "Email" e2: value "" → "ada@example.com"`},
		{`type role:textbox name:Password`, `~ textbox "Password" e3: value changed`},
		{`check role:checkbox name:"Remember me"`, `~ checkbox "Remember me" e4: not checked → checked`},
		{`click role:button name:"Sign in"`, `"Welcome back, ada@example.com!"`},
	}
	if len(steps) != len(want) {
		t.Fatalf("%d steps, want %d:\n%s", len(steps), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(steps[i].src, w.step) || !strings.Contains(steps[i].reply, w.change) {
			t.Errorf("step %d: %q answered\n%s\nwant %q answered with a line %q", i+1, steps[i].src, steps[i].reply, w.step, w.change)
		}
	}
	for _, st := range steps {
		if strings.Contains(st.reply, "correct horse") {
			t.Errorf("the password typed shows in the reply to %q:\n%s", st.src, st.reply)
		}
	}
}

// TestDemoPage: with --page, the demo prints only those pages' snapshots,
// each with its figures; a cross-site frame's content sits in its page.
func TestDemoPage(t *testing.T) {
	code, out, errs := run(t, "demo", "--page", "/login.html", "--page", "/cross.html")
	if code != ExitOK || !strings.Contains(out, `textbox "Email"`) || !strings.Contains(out, "MARKER-OOPIF-NESTED") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errs, out)
	}
	var figures int
	for l := range strings.Lines(out) {
		if snapshotFigures.MatchString(strings.TrimSuffix(l, "\n")) {
			figures++
		}
		if strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "# ") {
			t.Errorf("--page prints a step or a caption: %q", l)
		}
	}
	if figures != 2 {
		t.Errorf("%d snapshot figures lines, want 2:\n%s", figures, out)
	}
}

// TestDemoFlags: flags that do not go with --desktop are usage errors.
func TestDemoFlags(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "--desktop", "--page", "/login.html"},
		{"demo", "--desktop", "--cdp", "http://127.0.0.1:1"},
		{"demo", "extra"},
	} {
		if code, out, errs := run(t, args...); code != ExitInput || out != "" || errs == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and a reason", args, code, out, errs)
		}
	}
}

// TestDemoDesktopMissing: without the programs the desktop demo needs, it
// says which are missing and how to install them, and exits 2 before
// starting anything.
func TestDemoDesktopMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CANOPY_CHROMIUM", "")
	code, out, errs := run(t, "demo", "--desktop")
	if code != ExitEnv || out != "" {
		t.Fatalf("exit %d, stdout %q; want exit 2 and nothing on stdout", code, out)
	}
	for _, w := range []string{"Xvfb", "dbus-daemon", "mousepad", "apt-get install xvfb dbus mousepad", "Chromium"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q: %q", w, errs)
		}
	}
	if strings.Contains(errs, "virtual desktop on") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("stderr should be one line and no desktop started: %q", errs)
	}
}

// TestDemoDesktop runs `canopy demo --desktop` end to end on the virtual
// desktop it brings up: the page, its download link, the Save dialog
// (whoever draws it), the file saved under the name typed, and the file
// in mousepad, whose snapshot holds the file's text. Skipped without
// Xvfb, dbus-daemon or mousepad, except under CI=true, which installs them.
func TestDemoDesktop(t *testing.T) {
	for _, bin := range []string{"Xvfb", "dbus-daemon", demoEditor} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
	display := os.Getenv("DISPLAY")
	code, out, errs := run(t, "demo", "--desktop")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errs, out)
	}
	t.Logf("stdout:\n%s", out)
	if got := os.Getenv("DISPLAY"); got != display {
		t.Errorf("DISPLAY is %q after the demo, want %q back", got, display)
	}
	if !strings.Contains(errs, "started a virtual desktop on :") {
		t.Errorf("stderr does not say a desktop was started: %q", errs)
	}

	steps := demoSteps(t, out)
	checkSteps(t, steps)
	// The steps in order, each with a line its reply must hold. The wait
	// comes only when the click settled before the dialog was drawn.
	want := []struct {
		step    string
		replies []string
	}{
		{`navigate "http://127.0.0.1:`, []string{`link "Download report" e`}},
		{`click role:link name:"Download report"`, []string{`download started "report.txt"`}},
		{`wait role:dialog state:modal`, nil},
		{`type role:dialog >> role:textbox name:Name "q3-report.txt" clear`, []string{`→ "q3-report.txt"`}},
		{`click role:dialog >> role:button name:Save`, []string{"\nclosed dialog ", `/q3-report.txt`}},
		{`open_app mousepad "`, []string{"opened window ", " (mousepad) e"}},
		{`snapshot app:mousepad`, []string{`application "mousepad" e`, `value="` + strings.TrimSuffix(site.ReportText, "\n") + `\n"`}},
	}
	i := 0
	for _, w := range want {
		if i >= len(steps) {
			t.Fatalf("the demo stopped before %q:\n%s", w.step, out)
		}
		if !strings.HasPrefix(steps[i].src, w.step) {
			if w.replies == nil {
				continue // the optional wait
			}
			t.Fatalf("step %d is %q, want %q:\n%s", i+1, steps[i].src, w.step, out)
		}
		if w.replies == nil && hasLine(steps[i-1].reply, "opened dialog ") {
			t.Errorf("the demo waited for a dialog the click's reply showed open:\n%s", out)
		}
		for _, r := range w.replies {
			if !strings.Contains("\n"+steps[i].reply, r) {
				t.Errorf("step %q: reply lacks %q:\n%s", steps[i].src, r, steps[i].reply)
			}
		}
		i++
	}
	if i != len(steps) {
		t.Errorf("%d steps, want %d:\n%s", len(steps), i, out)
	}
	// The dialog opened, in the click's reply or by the wait after it.
	if !strings.Contains(out, "\nopened dialog ") {
		t.Errorf("no dialog opened:\n%s", out)
	}
	// The demo's downloads folder is gone with it.
	m := regexp.MustCompile(`open_app mousepad "([^"]+)/q3-report\.txt"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no open_app step with the file's path:\n%s", out)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("the demo's downloads folder %s is left behind: %v", m[1], err)
	}
}
