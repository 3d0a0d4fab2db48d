package browser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"

	"github.com/canopy-dev/canopy/action"
)

// TestPrint saves the page as PDF headless: into the downloads folder
// under the page's title, then under a given name (never over a file
// that is there), with the page's text in it. A path outside the
// downloads folder needs the sensitive tier.
func TestPrint(t *testing.T) {
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Fatal("the print tests need pdftotext: apt-get install poppler-utils")
	}
	e := newAct(t, "/geo.html")
	saved := regexp.MustCompile(`^saved the page as PDF: (.+) \(\d+ KB\)\n$`)
	var paths []string
	for _, step := range []string{`print`, `print "out/geo.pdf"`, `print "out/geo.pdf"`} {
		r := e.must(step)
		m := saved.FindStringSubmatch(r.Text)
		if m == nil {
			t.Fatalf("%s: %q", step, r.Text)
		}
		paths = append(paths, m[1])
	}
	dir := e.b.DownloadDir()
	want := []string{filepath.Join(dir, "Where am I.pdf"), filepath.Join(dir, "out", "geo.pdf"), filepath.Join(dir, "out", "geo (1).pdf")}
	for i, p := range paths {
		if p != want[i] {
			t.Errorf("PDF %d saved as %s, want %s", i+1, p, want[i])
		}
	}
	text, err := exec.Command(pdftotext, paths[0], "-").Output()
	if err != nil || !strings.Contains(string(text), "GEO-PRINT-MARKER") {
		t.Errorf("pdftotext %s: %v: %q", paths[0], err, text)
	}
	// window.print() headless: said, and the page goes on.
	r := e.must(`click role:button name:"Print this page"`)
	wantContains(t, "a click that prints", r.Text, "the page asked to print: headless Chromium has no print preview", `"printed"`)
	outside := filepath.Join(t.TempDir(), "x.pdf")
	if msg := e.fails(`print "` + outside + `"`); !strings.Contains(msg, "needs the sensitive tier") {
		t.Errorf("print outside the downloads folder at act: %s", msg)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s was written at act", outside)
	}
}

// TestPermissions grants geolocation to the page's origin headless: the
// page that was refused its position gets it after. deny takes it back;
// an unknown name lists the known ones.
func TestPermissions(t *testing.T) {
	e := newAct(t, "/geo.html")
	placeAt(t, e.b, 48.8584, 2.2945)
	locate := func() string {
		t.Helper()
		e.must(`click role:button name:"Locate me"; wait role:status text:/^(at|refused)/`)
		return e.must(`extract role:status text`).Text
	}
	if got := locate(); !strings.Contains(got, "refused") {
		t.Errorf("before the grant: %s", got)
	}
	r := e.must(`permissions grant geolocation`)
	if !regexp.MustCompile(`^granted geolocation to 127\.0\.0\.1:\d+\n$`).MatchString(r.Text) {
		t.Errorf("grant: %q", r.Text)
	}
	if got := locate(); !strings.Contains(got, "at 48.8584,2.2945") {
		t.Errorf("after the grant: %s", got)
	}
	e.must(`permissions deny geolocation`)
	if got := locate(); !strings.Contains(got, "refused") {
		t.Errorf("after deny: %s", got)
	}
	if _, err := e.do(action.Action{Kind: action.Permissions, Grant: []string{"teleport"}}); err == nil || !strings.Contains(err.Error(), `"teleport"`) || !strings.Contains(err.Error(), "geolocation") {
		t.Errorf("unknown permission: %v", err)
	}
	if msg := e.fails(`permissions grant clipboard`); !strings.Contains(msg, "needs the sensitive tier") {
		t.Errorf("granting the clipboard at act: %s", msg)
	}
	r = e.must(`permissions reset`)
	if !strings.Contains(r.Text, "reset every site's permissions") {
		t.Errorf("reset: %q", r.Text)
	}
}

// TestGrantAhead: a browser started with Options.Grant gives a page its
// position with no prompt and no permissions action.
func TestGrantAhead(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := New(ctx, Options{Grant: []string{"geolocation"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	load(t, b, "/geo.html")
	placeAt(t, b, 1.5, 2.5)
	e := &actEnv{t: t, b: b, s: newActSession(b, action.Act)}
	e.must(`click role:button name:"Locate me"; wait role:status text:/^(at|refused)/`)
	if r := e.must(`extract role:status text`); !strings.Contains(r.Text, "at 1.5,2.5") {
		t.Errorf("granted ahead: %s", r.Text)
	}
	if _, err := New(ctx, Options{Grant: []string{"teleport"}}); err == nil || !strings.Contains(err.Error(), "--grant") {
		t.Errorf("an unknown permission ahead: %v", err)
	}
}

// placeAt makes the current tab's geolocation report lat, lon.
func placeAt(t *testing.T, b *Browser, lat, lon float64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := cdp.Call(ctx, chromedpTarget(b.tabCtx()), emulation.SetGeolocationOverride, emulation.SetGeolocationOverrideParams{
		Latitude: &lat, Longitude: &lon, Accuracy: new(1.0),
	})
	if err != nil {
		t.Fatal(err)
	}
}
