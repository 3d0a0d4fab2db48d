//go:build linux

package desktop

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// TestZenityEntry opens a zenity entry dialog through the session, checks
// its tree, types a name, presses OK and reads what zenity printed.
func TestZenityEntry(t *testing.T) {
	d, s := open(t)
	r := openApp(t, s, "zenity", "--entry", "--title=Add item", "--text=Item name:")
	if !strings.Contains(r.Text, `opened dialog "Add item" (zenity) e`) {
		t.Fatalf("open_app reply does not show the new dialog and its app:\n%s", r.Text)
	}
	opened := r.Text
	golden(t, "zenity-open", renumber(r.Text))
	golden(t, "zenity-tree", renumber(scoped(t, d, "app:zenity")))

	r = run(t, s, action.Action{Kind: action.Type, Target: `window:"Add item" >> role:textbox name:"Item name"`, Text: "milk"})
	golden(t, "zenity-type", renumber(r.Text))
	it := d.itemOf(t, `app:zenity >> role:textbox`)
	if got, _ := d.conn.Text(context.Background(), it.Ref); got != "milk" {
		t.Errorf("entry text read back = %q, want milk", got)
	}
	// zenity prints the entry's text on stdout when OK is pressed.
	var l *launched
	d.mu.Lock()
	for _, x := range d.launched {
		l = x
	}
	d.mu.Unlock()
	r = run(t, s, action.Action{Kind: action.Click, Target: `app:zenity >> role:button name:OK`})
	select {
	case <-l.done:
	case <-time.After(10 * time.Second):
		t.Fatal("zenity did not exit after OK")
	}
	if got := strings.TrimSpace(l.out.buf.String()); !strings.Contains(got, "milk") {
		t.Errorf("zenity printed %q, want milk", got)
	}
	if !strings.Contains(r.Text, `closed dialog "Add item" (zenity) e`) {
		t.Errorf("the click's diff does not say the dialog closed:\n%s", r.Text)
	}
	// The dialog's refs are refused with where they were, not as unknown.
	ok := regexp.MustCompile(`button "OK" (e\d+)`).FindStringSubmatch(opened)
	if ok == nil {
		t.Fatalf("no OK button in the open_app reply:\n%s", opened)
	}
	_, err := s.Run(context.Background(), action.Action{Kind: action.Click, Target: ok[1]})
	var stale *session.StaleRefError
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), ok[1]+` was in dialog "Add item" of zenity, which is gone: take a new snapshot`) {
		t.Errorf("clicking %s of the closed dialog: %v", ok[1], err)
	}
}

// itemOf resolves a selector on a fresh snapshot and returns its object.
func (d *Desktop) itemOf(t *testing.T, sel string) *atspi.Item {
	t.Helper()
	snap, err := d.Snapshot(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	n := resolve(t, snap, sel)
	it, ok := d.item(n)
	if !ok {
		t.Fatalf("%s: no object", sel)
	}
	return it
}

// TestWidgetFactory reads gtk3-widget-factory's first page and acts on its
// controls, reading each state back over AT-SPI.
func TestWidgetFactory(t *testing.T) {
	d, s := open(t)
	openApp(t, s, "gtk3-widget-factory")
	golden(t, "widget-factory", renumber(scoped(t, d, "app:gtk3-widget-factory")))
	ctx := context.Background()

	// The enabled, unchecked check box.
	box := `app:gtk3-widget-factory >> role:checkbox !state:disabled !state:checked !state:mixed`
	r := run(t, s, action.Action{Kind: action.Check, Target: box + " nth:1"})
	if !strings.Contains(r.Text, "~ checkbox \"checkbutton\"") || !strings.Contains(r.Text, "checked") {
		t.Errorf("check diff:\n%s", r.Text)
	}
	golden(t, "wf-check", renumber(r.Text))
	if !r.Settled.Flushed {
		// A round trip to the app proved it had sent what the check
		// caused: no quiet window was needed.
		t.Errorf("check settled on the quiet window or the cap: %+v", r.Settled)
	}
	checkedNow := d.itemOf(t, `app:gtk3-widget-factory >> role:checkbox !state:disabled state:checked nth:1`)
	if st, _ := d.conn.States(ctx, checkedNow.Ref); !st.Has(atspi.StateChecked) {
		t.Error("the box is not checked when read back")
	}
	// Checking a checked box is a no-op.
	target := "app:gtk3-widget-factory >> role:checkbox !state:disabled state:checked nth:1"
	if r := run(t, s, action.Action{Kind: action.Check, Target: target}); r.Text != "no change\n" {
		t.Errorf("check on a checked box = %q, want no change", r.Text)
	}

	// Type into the plain entry, replacing its text.
	entry := `app:gtk3-widget-factory >> role:textbox value:entry !state:disabled`
	r = run(t, s, action.Action{Kind: action.Type, Target: entry, Text: "hello", Clear: true})
	if !strings.Contains(r.Text, `value "entry" → "hello"`) {
		t.Errorf("type diff:\n%s", r.Text)
	}
	it := d.itemOf(t, `app:gtk3-widget-factory >> role:textbox value:hello`)
	if got, _ := d.conn.Text(ctx, it.Ref); got != "hello" {
		t.Errorf("entry read back %q", got)
	}

	// A slider through the Value interface.
	slider := `app:gtk3-widget-factory >> role:slider !state:disabled value:50 nth:1`
	r = run(t, s, action.Action{Kind: action.SetValue, Target: slider, Text: "75"})
	if !strings.Contains(r.Text, `"50" → "75"`) {
		t.Errorf("set_value diff:\n%s", r.Text)
	}
	if _, err := s.Run(ctx, action.Action{Kind: action.SetValue, Target: `app:gtk3-widget-factory >> role:slider !state:disabled value:75 nth:1`, Text: "1000"}); err == nil || !strings.Contains(err.Error(), "outside its range") {
		t.Errorf("set_value out of range: err = %v", err)
	}

	// A toggle button through its action; the diff says pressed.
	r = run(t, s, action.Action{Kind: action.Click, Target: `app:gtk3-widget-factory >> role:togglebutton name:togglebutton !state:disabled !state:pressed`})
	if !strings.Contains(r.Text, "pressed") {
		t.Errorf("toggle diff:\n%s", r.Text)
	}

	// Keys through XTEST into the focused entry.
	r = run(t, s, action.Action{Kind: action.Press, Target: `app:gtk3-widget-factory >> role:textbox value:hello`, Keys: "End ! Tab"})
	_ = r
}

// TestBadInput: missing programs, apps that die, objects that vanish.
func TestBadInput(t *testing.T) {
	d, s := open(t)
	ctx := context.Background()
	if _, err := s.Run(ctx, action.Action{Kind: action.OpenApp, Command: "no-such-program-xyz"}); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("open_app at act of a program that is no desktop application: %v, want a refusal", err)
	}
	if _, err := s.Run(ctx, action.Action{Kind: action.OpenApp, Command: "false"}); err == nil || !strings.Contains(err.Error(), "exited before showing a window") {
		t.Errorf("open_app of a program that fails: %v", err)
	}
	// What a program prints never comes back: only its name and status.
	wide := session.New(d, policy.New(action.Sensitive), session.Options{})
	if _, err := wide.Run(ctx, action.Action{Kind: action.OpenApp, Command: "no-such-program-xyz"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("open_app of a missing program: %v", err)
	}
	_, err := wide.Run(ctx, action.Action{Kind: action.OpenApp, Command: "sh", Args: []string{"-c", "echo PRINTED-SECRET; echo PRINTED-SECRET >&2; exit 3"}})
	if err == nil || !strings.Contains(err.Error(), "sh exited before showing a window: exit status 3") || strings.Contains(err.Error(), "PRINTED-SECRET") {
		t.Errorf("open_app of a program that prints and fails: %v", err)
	}
	if _, err := s.Run(ctx, action.Action{Kind: action.Navigate, URL: "http://127.0.0.1/"}); err == nil || !strings.Contains(err.Error(), "web pages") {
		t.Errorf("navigate on the desktop: %v", err)
	}
	// A dialog that closes between resolving and acting.
	openApp(t, s, "zenity", "--info", "--title=Gone soon", "--text=bye")
	snap, err := d.Snapshot(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	ok := resolve(t, snap, `window:"Gone soon" >> role:button name:OK`)
	if err := exec.Command("pkill", "-f", "Gone soon").Run(); err != nil {
		t.Fatal(err)
	}
	p, _ := policy.New(action.Act).Permit(ctx, policy.Request{Action: action.Action{Kind: action.Click}})
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err = d.Do(ctx, p, action.Action{Kind: action.Click}, ok, nil)
		if err != nil || time.Now().After(deadline) {
			break
		}
	}
	if !errors.Is(err, session.ErrStale) {
		t.Errorf("click on a closed dialog's button: %v, want ErrStale", err)
	}
	// An app that never shows a window: a clear error at the cap, and the
	// process is stopped with the session.
	short, err := Open(ctx, Options{AppTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	ss := session.New(short, policy.New(action.Act, policy.Apps("sleep")), session.Options{})
	if _, err := ss.Run(ctx, action.Action{Kind: action.OpenApp, Command: "sleep", Args: []string{"60"}}); err == nil || !strings.Contains(err.Error(), "no window of it appeared") {
		t.Errorf("open_app of a windowless program: %v", err)
	}
	// The session is still usable.
	if _, err := s.Run(ctx, action.Action{Kind: action.Snapshot}); err != nil {
		t.Errorf("snapshot after errors: %v", err)
	}
}

// TestFocus: open_app leaves the new window focused with its default focus
// widget (mousepad's text area), activate gives it back after another app
// took it, and an app that cannot take it (stopped) is a one-line error
// within the cap that leaves the session usable.
func TestFocus(t *testing.T) {
	d, _ := open(t)
	ctx := context.Background()
	// At act, open_app hands an application files from the downloads
	// folder only.
	downloads := t.TempDir()
	s := session.New(d, policy.New(action.Act, policy.Apps("zenity")), session.Options{Downloads: downloads})
	file := filepath.Join(downloads, "notes.txt")
	if err := os.WriteFile(file, []byte("notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const editor = `app:mousepad >> role:textbox state:focused`
	r := openApp(t, s, "mousepad", file)
	if !regexp.MustCompile(`(?m)^[+ ]+textbox e[0-9]+ focused multiline`).MatchString(r.Text) {
		t.Errorf("open_app reply does not show mousepad's text area focused:\n%s", r.Text)
	}
	run(t, s, action.Action{Kind: action.Press, Target: editor, Keys: "ctrl+End"})
	run(t, s, action.Action{Kind: action.Type, Target: editor, Text: "one "})

	// Another app takes the focus as it opens.
	openApp(t, s, "zenity", "--entry", "--title=Other", "--text=Other:")
	if n := find(t, d, editor); len(n) != 0 {
		t.Fatalf("mousepad's text area is still focused after zenity opened: %s", tree.Line(n[0]))
	}
	r = run(t, s, action.Action{Kind: action.Activate, Target: `app:mousepad`})
	if !strings.Contains(r.Text, "focus → textbox") {
		t.Errorf("activate reply does not say the focus moved to the text area:\n%s", r.Text)
	}
	run(t, s, action.Action{Kind: action.Type, Target: editor, Text: "two"})
	it := d.itemOf(t, editor)
	if got, _ := d.conn.Text(ctx, it.Ref); got != "notes\none two" {
		t.Errorf("mousepad holds %q, want the typed words after the text", got)
	}

	// A stopped app cannot take the focus.
	pid := 0
	d.mu.Lock()
	for p, l := range d.launched {
		if strings.Contains(strings.Join(l.cmd.Args, " "), "Other") {
			pid = p
		}
	}
	d.mu.Unlock()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := s.Run(ctx, action.Action{Kind: action.Activate, Target: `window:Other`})
	took := time.Since(start)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	t.Logf("activate on a stopped app, after %v: %v", took.Round(time.Millisecond), err)
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("activate on a stopped app: %v, want a one-line error", err)
	}
	if took > 2*FocusTimeout+2*time.Second {
		t.Errorf("activate on a stopped app took %v, past its cap", took)
	}
	// Going again, the session is usable and the app takes the focus.
	r = run(t, s, action.Action{Kind: action.Activate, Target: `window:Other`})
	if n := find(t, d, `window:Other >> role:textbox state:focused`); len(n) != 1 {
		t.Errorf("zenity's entry is not focused after activate:\n%s", r.Text)
	}
}

// find lists the nodes a selector names in a fresh snapshot.
func find(t *testing.T, d *Desktop, sel string) []*tree.Node {
	t.Helper()
	snap, err := d.Snapshot(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	return selector.Find([]*tree.Snapshot{snap}, selector.MustParse(sel))
}
