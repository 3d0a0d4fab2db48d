//go:build linux

package desktop

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// TestScreenshot captures a zenity dialog: by its window node (the PNG is
// the window's size), with no target (the window in front, the same
// size), with marks (pixels change), and the whole screen. A window that closed is a one-line error.
func TestScreenshot(t *testing.T) {
	d, s := open(t)
	openApp(t, s, "zenity", "--entry", "--title=Shot", "--text=Name:")
	snap, err := d.Snapshot(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	win := resolve(t, snap, `window:Shot`)
	if win.Bounds == nil {
		t.Fatalf("the window has no box: %s", tree.Line(win))
	}
	wantW, wantH := int(win.Bounds.W), int(win.Bounds.H)
	size := func(r []byte) (int, int) {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(r))
		if err != nil {
			t.Fatalf("decode the PNG: %v", err)
		}
		return img.Bounds().Dx(), img.Bounds().Dy()
	}
	shot := func(a action.Action) []byte {
		t.Helper()
		r := run(t, s, a)
		if len(r.Image) == 0 || !strings.HasPrefix(r.Text, "screenshot: ") {
			t.Fatalf("%s: no image (%q)", a, r.Text)
		}
		return r.Image
	}
	plain := shot(action.Action{Kind: action.Screenshot, Target: "window:Shot"})
	if w, h := size(plain); w != wantW || h != wantH {
		t.Errorf("window screenshot is %dx%d, the window %dx%d", w, h, wantW, wantH)
	}
	front := shot(action.Action{Kind: action.Screenshot})
	if w, h := size(front); w != wantW || h != wantH {
		t.Errorf("screenshot of the window in front is %dx%d, want the dialog's %dx%d", w, h, wantW, wantH)
	}
	marked := shot(action.Action{Kind: action.Screenshot, Target: "window:Shot", Marks: true})
	if bytes.Equal(marked, plain) {
		t.Error("marks drew nothing on the window")
	}
	whole := shot(action.Action{Kind: action.Screenshot, Screen: true})
	if w, h := size(whole); w < wantW || h < wantH || w < 640 {
		t.Errorf("screen screenshot is %dx%d", w, h)
	}
	// The window closes; its node from the last snapshot is stale.
	run(t, s, action.Action{Kind: action.Press, Target: `window:Shot >> role:textbox`, Keys: "Escape"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	_, err = d.Do(ctx, nil, action.Action{Kind: action.Screenshot}, win, nil)
	if err == nil || strings.Contains(err.Error(), "\n") || time.Since(start) > 5*time.Second {
		t.Errorf("screenshot of a closed window: %v after %v", err, time.Since(start))
	}
}

// TestPointsDesktop: find at the centre of a dialog's button names it;
// click at it presses it (the dialog closes); a point on no window is a
// one-line error.
func TestPointsDesktop(t *testing.T) {
	d, s := open(t)
	openApp(t, s, "zenity", "--question", "--title=Point", "--text=Go on?")
	snap, err := d.Snapshot(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	yes := resolve(t, snap, `window:Point >> role:button name:Yes`)
	if yes.Bounds == nil {
		t.Fatalf("no box: %s", tree.Line(yes))
	}
	at := fmt.Sprintf("%.0f,%.0f", yes.Bounds.X+yes.Bounds.W/2, yes.Bounds.Y+yes.Bounds.H/2)
	r := run(t, s, action.Action{Kind: action.Find, At: at})
	if !strings.HasPrefix(r.Text, `button "Yes" e`) {
		t.Errorf("find at %s: %q", at, r.Text)
	}
	r = run(t, s, action.Action{Kind: action.Click, At: at})
	if !strings.Contains(r.Text, `closed dialog "Point"`) {
		t.Errorf("click at %s:\n%s", at, r.Text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := s.Run(ctx, action.Action{Kind: action.Find, At: "-5,-5"}); err == nil || !strings.Contains(err.Error(), "no element at -5,-5") {
		t.Errorf("find at a point on no window: %v", err)
	}
}
