//go:build linux

package clipboard

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/canopy-dev/canopy/keys"
	"github.com/canopy-dev/canopy/xinput"
)

// TestGTKCopy: text copied in a GTK 3 text view (zenity --text-info), 1 MB
// so that GTK sends it by INCR, reads back whole. The raw client owns the
// clipboard before each Ctrl+C, so its SelectionClear says when GTK took
// it; the copy is retried while zenity is still loading the file.
func TestGTKCopy(t *testing.T) {
	c, r := newClip(t), newRaw(t)
	d := display(t)
	line := "GTK line é 日本 🎉 of a long text\n"
	want := strings.Repeat(line, 1<<20/len(line))
	file := filepath.Join(t.TempDir(), "text.txt")
	if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	zenity(t, d, r, "Copy me", "--text-info", "--editable", "--filename="+file)
	deadline := time.Now().Add(30 * time.Second)
	for {
		r.own()
		press(t, d, "ctrl+a ctrl+c")
		r.waitFor(10*time.Second, func(ev xgb.Event) bool { _, ok := ev.(xproto.SelectionClearEvent); return ok })
		start := time.Now()
		got, err := c.Read(context.Background())
		if err == nil && got == want {
			t.Logf("read %d bytes from GTK in %v", len(got), time.Since(start))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Read from GTK: %d bytes (want %d), %v", len(got), len(want), err)
		}
	}
}

// TestGTKPaste: text written here and pasted with Ctrl+V in a GTK 3 entry
// (zenity --entry) arrives whole: the entry's text, copied back with
// Ctrl+C and read from GTK (not from our Clipboard: the owner is checked),
// ends with it. GTK pastes asynchronously, so the copy is retried until
// the pasted text is in; a Ctrl+A that comes first makes the paste replace
// the entry's "old" text, else it follows it.
func TestGTKPaste(t *testing.T) {
	c, b, r := newClip(t), newClip(t), newRaw(t)
	d := display(t)
	paste := strings.Repeat("Paste é 日本 🎉 ", 2000) // 16000 characters; a GtkEntry takes 65535
	write(t, c, paste)
	zenity(t, d, r, "Paste here", "--entry", "--entry-text=old")
	press(t, d, "End ctrl+v")
	clip := r.atom("CLIPBOARD")
	deadline := time.Now().Add(30 * time.Second)
	for {
		press(t, d, "ctrl+a ctrl+c")
		// Once GTK owns the clipboard, what b reads comes from GTK.
		o, err := xproto.GetSelectionOwner(r.conn, clip).Reply()
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Read(context.Background())
		if err == nil && o.Owner != c.owner && strings.HasSuffix(got, paste) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the GTK entry holds %d bytes %.40q…, want %d bytes (%v)", len(got), got, len(paste), err)
		}
	}
}

// TestGTKPasteLarge: 1 MB written here and pasted with Ctrl+V in a GTK 3
// text view (zenity --text-info --editable) arrives whole, sent by INCR.
// The view's text is read back through PRIMARY, which GTK owns once
// Ctrl+A selects everything: copying with Ctrl+C would make GTK the
// CLIPBOARD owner while its paste (several requests: GTK's own format,
// TARGETS, then UTF8_STRING) may still be asking for the text.
func TestGTKPasteLarge(t *testing.T) {
	c, primary, r := newClip(t), newSelection(t, "PRIMARY"), newRaw(t)
	d := display(t)
	line := "Pasted line é 日本 🎉 of a big page extract\n"
	paste := strings.Repeat(line, 1<<20/len(line))
	write(t, c, paste)
	file := filepath.Join(t.TempDir(), "old.txt")
	if err := os.WriteFile(file, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	zenity(t, d, r, "Paste a lot", "--text-info", "--editable", "--filename="+file)
	press(t, d, "ctrl+End ctrl+v")
	start := time.Now()
	deadline := start.Add(30 * time.Second)
	for {
		press(t, d, "ctrl+a")
		got, err := primary.Read(context.Background())
		// zenity may load its file after the paste: "old" comes first or last.
		if err == nil && strings.Contains(got, paste) {
			t.Logf("GTK had the %d bytes within %v", len(paste), time.Since(start))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the GTK text view holds %d bytes, want the %d pasted in them (%v)", len(got), len(paste), err)
		}
	}
}

// display opens the xinput Display that types into GTK.
func display(t *testing.T) *xinput.Display {
	t.Helper()
	if _, err := exec.LookPath("zenity"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("zenity is not installed (CI installs it: scripts/deps.sh)")
		}
		t.Skip("zenity is not installed (apt-get install zenity)")
	}
	d, err := xinput.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// zenity starts zenity with a window titled title and returns once that
// window is mapped and has the keyboard focus. It is killed when the test
// ends.
func zenity(t *testing.T, d *xinput.Display, r *raw, title string, args ...string) {
	t.Helper()
	err := xproto.ChangeWindowAttributesChecked(r.conn, r.root, xproto.CwEventMask,
		[]uint32{xproto.EventMaskSubstructureNotify}).Check()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("zenity", append([]string{"--title=" + title, "--width=600", "--height=400"}, args...)...)
	cmd.Env = append(os.Environ(), "NO_AT_BRIDGE=1", "GDK_BACKEND=x11")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("zenity said:\n%s", out.String())
		}
	})
	ctx := context.Background()
	for {
		r.waitFor(30*time.Second, func(ev xgb.Event) bool { _, ok := ev.(xproto.MapNotifyEvent); return ok })
		wins, err := d.Windows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wins {
			if w.Title == title {
				if err := d.RaiseAndFocusAt(ctx, w.X+w.W/2, w.Y+w.H/2); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
	}
}

// press presses a key sequence in the focused window.
func press(t *testing.T, d *xinput.Display, seq string) {
	t.Helper()
	chords, err := keys.Parse(seq)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Press(context.Background(), chords); err != nil {
		t.Fatal(fmt.Errorf("press %s: %w", seq, err))
	}
}
