//go:build linux

package workspace_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/desktop"
	"github.com/canopy-dev/canopy/internal/chromiumui"
	"github.com/canopy-dev/canopy/internal/desktoptest"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/xinput"
)

// TestLateAttach is the late attach: the Save dialog opened before
// canopy's desktop existed, so no event announced it.
//
// Without the portal it is Chromium's GTK 3 dialog, which hangs under an
// application object the desktop root does not list: the desktop must not
// show it then, but say in the snapshot's notes that it is on screen; a
// Shift+Tab moves the focus inside it, the focus event leads the desktop
// to it, and the agent names the file and saves it. With the portal, the
// dialog is its own application's window, in the tree from the start.
func TestLateAttach(t *testing.T) {
	chromiumui.Relies(t, chromiumui.SaveDialog)
	for _, m := range desktoptest.Modes {
		t.Run(m.Name, func(t *testing.T) {
			desktoptest.Use(t, m)
			lateAttach(t, !m.NoPortals)
		})
	}
}

func lateAttach(t *testing.T, portal bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	dir := t.TempDir()

	// The browser alone: no desktop (no AT-SPI listener of canopy's) yet.
	b, err := browser.New(ctx, browser.Options{
		Headful: true, AskDownloads: true, DownloadDir: dir,
		Env:  []string{"ACCESSIBILITY_ENABLED=1"},
		Args: []string{"--force-renderer-accessibility"},
	})
	if err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	page := session.New(b.Source(), policy.New(action.Act), session.Options{})
	if _, err := page.Run(ctx, action.Action{Kind: action.Navigate, URL: testSite.URL("/download.html")}); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	x, err := xinput.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	before, err := x.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.Run(ctx, action.Action{Kind: action.Click, Target: `role:link name:"Download report"`}); err != nil {
		t.Fatalf("click the download link: %v", err)
	}
	win := waitNewXWindow(ctx, t, x, before, 15*time.Second)
	t.Logf("the dialog is on screen: %+v", win)

	d, err := desktop.Open(ctx, desktop.Options{SkipWeb: true, Logger: log})
	if err != nil {
		t.Fatalf("opening the desktop: %v", err)
	}
	t.Cleanup(func() { d.Close() })

	snap, err := d.Snapshot(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if n := findNodes(t, snap, `role:application name:Chromium`); len(n) == 0 {
		t.Fatalf("the desktop does not show Chromium at all:\n%s", tree.Format(snap, tree.Options{Full: true}))
	}
	w, err := d.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if portal {
		// The portal's dialog is a window of its own application.
		if n := findNodes(t, snap, saveDialog); len(n) != 1 {
			t.Fatalf("the portal's dialog is not in the first snapshot:\n%s", tree.Format(snap, tree.Options{Full: true}))
		}
		if len(snap.Header.Notes) != 0 {
			t.Errorf("the snapshot notes a missing window: %q", snap.Header.Notes)
		}
	} else {
		lateGTK3(ctx, t, d, x, snap, win, w.Events())
		snap = waitDesktopTree(ctx, t, d, w.Events(), saveDialog, true, 5*time.Second)
	}

	name := resolveNode(t, snap, saveDialog+` >> role:textbox name:Name`)
	save := resolveNode(t, snap, saveDialog+` >> role:button name:Save`)
	desktopDo(ctx, t, d, action.Action{Kind: action.Type, Text: "late.txt", Clear: true}, name)
	desktopDo(ctx, t, d, action.Action{Kind: action.Click}, save)
	waitFile(t, filepath.Join(dir, "late.txt"), site.ReportText)
	// The saved dialog leaves the tree.
	waitDesktopTree(ctx, t, d, w.Events(), saveDialog, false, 5*time.Second)
}

// saveDialog is the selector of the Save dialog, whoever draws it.
const saveDialog = `role:dialog state:modal`

// lateGTK3 checks that Chromium's GTK 3 dialog, opened while nothing
// listened, is not in the tree but named in the snapshot's notes, and
// moves the keyboard focus inside it so that the desktop finds it.
func lateGTK3(ctx context.Context, t *testing.T, d *desktop.Desktop, x *xinput.Display, snap *tree.Snapshot, win xinput.Window, events <-chan settle.Event) {
	t.Helper()
	if n := findNodes(t, snap, saveDialog); len(n) != 0 {
		t.Fatalf("the dialog is in the tree before any focus event (%s): this test would not exercise the late attach", tree.Line(n[0]))
	}
	// The snapshot says what is missing and how to bring it in.
	want := fmt.Sprintf(`window %q of "Chromium" is on screen but not in the accessibility tree`, win.Title)
	if notes := strings.Join(snap.Header.Notes, "\n"); !strings.Contains(notes, want) || !strings.Contains(notes, "shift+Tab") {
		t.Errorf("the snapshot's notes do not point at the missing dialog: %q", snap.Header.Notes)
	}
	// Move the keyboard focus inside the dialog: its Name entry holds it
	// and Shift+Tab takes it to the Save button. Not Tab: GTK's file
	// chooser entry eats Tab in a Save dialog (it completes file names and
	// never lets Tab leave the entry), so Tab changes nothing and no event
	// comes. Without a window manager GDK gives a presented window the X
	// focus itself; the raise makes sure the key goes to the dialog.
	if err := x.RaiseAndFocusAt(ctx, win.X+win.W/2, win.Y+win.H/2); err != nil {
		t.Fatalf("focusing the dialog's window: %v", err)
	}
	desktopDo(ctx, t, d, action.Action{Kind: action.Press, Keys: "Shift+Tab"}, nil)
}

// waitNewXWindow waits until a viewable top-level X window that was not in
// before, and is not a pop-up (override-redirect) or a toolkit's tiny
// helper window, is mapped, and returns
// it. The browser maps it in its own process and nothing canopy listens to
// says so, so this asks the X server every 50 ms, up to limit.
func waitNewXWindow(ctx context.Context, t *testing.T, x *xinput.Display, before []xinput.Window, limit time.Duration) xinput.Window {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		wins, err := x.Windows(ctx)
		if err != nil {
			t.Fatalf("listing X windows: %v", err)
		}
		for _, w := range wins {
			if !w.Override && w.Title != "" && w.W*w.H >= 100*100 && !slices.ContainsFunc(before, func(b xinput.Window) bool { return b.ID == w.ID }) {
				return w
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new window after %v; windows: %+v", limit, wins)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitDesktopTree takes snapshots until sel names a node in one (present)
// or in none (!present), and returns that snapshot. The change comes from
// another process (the browser), so a new snapshot is taken after each
// burst of desktop events and, since the desktop files a window a focus event leads
// to a moment after the event itself, every 100 ms as well, up to limit.
func waitDesktopTree(ctx context.Context, t *testing.T, d *desktop.Desktop, events <-chan settle.Event, sel string, present bool, limit time.Duration) *tree.Snapshot {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	for {
		snap, err := d.Snapshot(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		if found := len(findNodes(t, snap, sel)) > 0; found == present {
			t.Logf("%s present=%v after %v", sel, present, time.Since(start).Round(time.Millisecond))
			return snap
		}
		select {
		case <-deadline.C:
			t.Fatalf("%s is still %s the tree after %v:\n%s", sel, map[bool]string{true: "not in", false: "in"}[present], limit, tree.Format(snap, tree.Options{Full: true}))
		case <-events:
			drain(events) // one snapshot for a burst of events
		case <-tick.C:
		}
	}
}

// drain empties events without waiting.
func drain(events <-chan settle.Event) {
	for {
		select {
		case <-events:
		default:
			return
		}
	}
}

// desktopDo performs one desktop action with its permit, failing the test on
// error.
func desktopDo(ctx context.Context, t *testing.T, d *desktop.Desktop, a action.Action, target *tree.Node) {
	t.Helper()
	p, err := policy.New(action.Act).Permit(ctx, policy.Request{Action: a})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Do(ctx, p, a, target, nil); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
}

// findNodes returns the nodes of snap that sel names.
func findNodes(t *testing.T, snap *tree.Snapshot, sel string) []*tree.Node {
	t.Helper()
	return selector.Find([]*tree.Snapshot{snap}, selector.MustParse(sel))
}

// resolveNode returns the one node of snap that sel names.
func resolveNode(t *testing.T, snap *tree.Snapshot, sel string) *tree.Node {
	t.Helper()
	n, _, err := selector.Resolve([]*tree.Snapshot{snap}, selector.MustParse(sel))
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return n
}
