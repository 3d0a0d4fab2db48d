//go:build linux

package workspace_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/chromiumui"
	"github.com/canopy-dev/canopy/internal/desktoptest"
)

// printMarker is text of the printed page (geo.html) that the PDF holds.
const printMarker = "GEO-PRINT-MARKER"

// TestPrintPreview drives Chromium's print preview on the desktop by canopy
// actions: a page's Print button opens it, and the click's reply shows its
// controls; the agent picks "Save as PDF", presses Save, names the file in
// the Save dialog (the portal's or the browser's own) and saves it. The
// PDF holds the page's text, and the page is back in the tree after.
func TestPrintPreview(t *testing.T) {
	chromiumui.Relies(t, chromiumui.PrintPreview, chromiumui.SaveDialog)
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Fatal("the print tests need pdftotext: apt-get install poppler-utils")
	}
	for _, mode := range desktoptest.Modes {
		t.Run(mode.Name, func(t *testing.T) {
			desktoptest.Use(t, mode)
			printPreview(t, pdftotext)
		})
	}
}

func printPreview(t *testing.T, pdftotext string) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w, s := openWorkspace(ctx, t)
	run := func(a action.Action) string {
		t.Helper()
		r, err := s.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s %s: %v", a.Kind, a.Target, err)
		}
		t.Logf("%s %s:\n%s", a.Kind, a.Target, r.Text)
		return r.Text
	}
	run(action.Action{Kind: action.Navigate, URL: testSite.URL("/geo.html")})

	r := run(action.Action{Kind: action.Click, Target: `role:button name:"Print this page"`})
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^opened print preview$`),
		regexp.MustCompile(`(?m)^[+ ]+combobox "Destination" e[0-9]+`),
		regexp.MustCompile(`(?m)^[+ ]+button "Save" e[0-9]+`),
		regexp.MustCompile(`(?m)^[+ ]+button "Cancel" e[0-9]+`),
	} {
		if !want.MatchString(r) {
			t.Errorf("the click's reply lacks %s", want)
		}
	}
	if regexp.MustCompile(`(?m)^opened window e[0-9]+$`).MatchString(r) {
		t.Errorf("the click's reply names a window inside the preview:\n%s", r)
	}
	// The tab's page is grafted into the tab's document only, never into
	// the preview's own web document (whose picture of the page, the PDF
	// viewer's, is text without refs).
	snap := run(action.Action{Kind: action.Snapshot, Full: true})
	if doc := blockOf(snap, `combobox "Destination"`); doc == "" || strings.Contains(doc, `button "Print this page"`) {
		t.Errorf("the page shows inside the print preview's document:\n%s", doc)
	}

	// The preview's own page (chrome://print, a CDP target of type page)
	// is no tab of the agent's.
	if tabs, err := w.Browser().Tabs(ctx); err != nil || len(tabs) != 1 {
		t.Errorf("tabs while the preview is up: %v, %+v", err, tabs)
	}

	run(action.Action{Kind: action.Select, Target: `role:combobox name:Destination`, Text: "Save as PDF"})
	r = run(action.Action{Kind: action.Click, Target: `role:button name:Save`})
	if !strings.Contains(r, "opened dialog ") {
		// The Save dialog may still be drawing when the click settles.
		run(action.Action{Kind: action.Wait, Target: nameField, Timeout: 10 * time.Second})
	}
	// At act a file chooser saves only in the downloads folder.
	out := filepath.Join(w.Browser().DownloadDir(), "geo-preview.pdf")
	run(action.Action{Kind: action.Type, Target: nameField, Text: out, Clear: true})
	run(action.Action{Kind: action.Click, Target: saveButton})
	waitPDF(t, pdftotext, out, printMarker)

	// The preview closed, print() returned: the page is back in the tree.
	run(action.Action{Kind: action.Wait, Target: `tab:1 >> role:status text:printed`, Timeout: 10 * time.Second})
}

// blockOf returns the lines of the document in a snapshot's text that
// holds the first line containing inner: from the nearest document line
// above it to the end of that document's subtree.
func blockOf(snapshot, inner string) string {
	lines := strings.Split(snapshot, "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, inner) })
	if at < 0 {
		return ""
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	start := at
	for start >= 0 && !(strings.HasPrefix(strings.TrimSpace(lines[start]), "document") && indent(lines[start]) < indent(lines[at])) {
		start--
	}
	if start < 0 {
		return ""
	}
	end := start + 1
	for end < len(lines) && indent(lines[end]) > indent(lines[start]) {
		end++
	}
	return strings.Join(lines[start:end], "\n")
}

// waitPDF waits until path is a PDF whose text holds want. The browser
// writes it after the Save dialog closed: this polls the disk, with a cap,
// since no event reports it.
func waitPDF(t *testing.T, pdftotext, path, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var text []byte
	var err error
	for time.Now().Before(deadline) {
		if _, serr := os.Stat(path); serr == nil {
			text, err = exec.Command(pdftotext, path, "-").Output()
			if err == nil && strings.Contains(string(text), want) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: no PDF holding %q (pdftotext: %v, %q)", path, want, err, text)
}

// TestPrintPreviewNever: a page asks to print in ways that bring up no
// preview — from a sandboxed frame (Chromium ignores the call), and by
// faking the beforeprint event. Neither is taken for a request to print:
// the click does not wait for a preview, and its reply does not say one
// opened.
func TestPrintPreviewNever(t *testing.T) {
	chromiumui.Relies(t, chromiumui.PrintPreview)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	_, s := openWorkspace(ctx, t)
	if _, err := s.Run(ctx, action.Action{Kind: action.Navigate, URL: testSite.URL("/print-never.html")}); err != nil {
		t.Fatal(err)
	}
	for _, button := range []string{"Print from a sandbox", "Fake a print"} {
		r, err := s.Run(ctx, action.Action{Kind: action.Click, Target: `role:button name:"` + button + `"`})
		if err != nil {
			t.Fatalf("click %q: %v", button, err)
		}
		t.Logf("click %q:\n%s", button, r.Text)
		if strings.Contains(r.Text, "asked to print") {
			t.Errorf("click %q was taken for a request to print (and waited for a preview):\n%s", button, r.Text)
		}
		if regexp.MustCompile(`(?m)^opened print preview$`).MatchString(r.Text) {
			t.Errorf("click %q says a preview opened:\n%s", button, r.Text)
		}
		if strings.Contains(r.Text, `window "Print"`) {
			t.Errorf("click %q shows a preview window:\n%s", button, r.Text)
		}
	}
}
