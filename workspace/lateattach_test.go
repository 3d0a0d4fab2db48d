package workspace_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/desktop"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/xinput"
)

// saveDialog is the selector of Chromium's GTK 3 Save dialog.
const saveDialog = `window:"Save File"`

// TestLateAttach is the late attach: Chromium's GTK 3 Save dialog opened
// before canopy's desktop existed, so no Window:Create announced it, and
// the dialog hangs under an application object the desktop root does not
// list. The desktop must not show it then; a Tab key moves the focus
// inside it, the focus event leads the desktop to it, and the agent names
// the file and saves it.
func TestLateAttach(t *testing.T) {
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
	if _, err := page.Run(ctx, action.Action{Kind: action.Click, Target: `role:link name:"Download report"`}); err != nil {
		t.Fatalf("click the download link: %v", err)
	}

	x, err := xinput.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	win := waitXWindow(ctx, t, x, "Save File", 15*time.Second)
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
	if n := findNodes(t, snap, saveDialog); len(n) != 0 {
		t.Fatalf("the dialog is in the tree before any focus event (%s): this test would not exercise the late attach", tree.Line(n[0]))
	}
	// The snapshot says what is missing and how to bring it in.
	if notes := strings.Join(snap.Header.Notes, "\n"); !strings.Contains(notes, `window "Save File" of "Chromium" is on screen but not in the accessibility tree`) || !strings.Contains(notes, "shift+Tab") {
		t.Errorf("the snapshot's notes do not point at the missing dialog: %q", snap.Header.Notes)
	}

	// Move the keyboard focus inside the dialog: its Name entry holds it
	// and Shift+Tab takes it to the Save button. Not Tab: GTK's file
	// chooser entry eats Tab in a Save dialog (it completes file names and
	// never lets Tab leave the entry), so Tab changes nothing and no event
	// comes. Without a window manager GDK gives a presented window the X
	// focus itself; the raise makes sure the key goes to the dialog.
	w, err := d.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := x.RaiseAndFocusAt(ctx, win.X+win.W/2, win.Y+win.H/2); err != nil {
		t.Fatalf("focusing the dialog's window: %v", err)
	}
	desktopDo(ctx, t, d, action.Action{Kind: action.Press, Keys: "Shift+Tab"}, nil)
	snap = waitDesktopTree(ctx, t, d, w.Events(), saveDialog, true, 5*time.Second)

	name := resolveNode(t, snap, saveDialog+` >> role:textbox name:Name`)
	save := resolveNode(t, snap, saveDialog+` >> role:button name:Save`)
	desktopDo(ctx, t, d, action.Action{Kind: action.Type, Text: "late.txt", Clear: true}, name)
	desktopDo(ctx, t, d, action.Action{Kind: action.Click}, save)
	waitFile(t, filepath.Join(dir, "late.txt"), site.ReportText)
	// The saved dialog leaves the tree (window:destroy drops it).
	waitDesktopTree(ctx, t, d, w.Events(), saveDialog, false, 5*time.Second)
}

// waitXWindow waits until a viewable top-level X window titled title is
// mapped and returns it. The browser maps it in its own process and
// nothing canopy listens to says so, so this asks the X server every
// 50 ms, up to limit.
func waitXWindow(ctx context.Context, t *testing.T, x *xinput.Display, title string, limit time.Duration) xinput.Window {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		wins, err := x.Windows(ctx)
		if err != nil {
			t.Fatalf("listing X windows: %v", err)
		}
		for _, w := range wins {
			if w.Title == title {
				return w
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window %q after %v; windows: %+v", title, limit, wins)
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
	p, err := policy.New(action.Act).Permit(ctx, a, "")
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
