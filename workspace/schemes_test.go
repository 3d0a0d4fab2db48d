//go:build linux

package workspace_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/chromiumui"
)

// TestExternalSchemeDialog: on the desktop, a link to an app's own scheme
// makes Chromium ask whether to open it, in a dialog of its own: the
// click's reply shows the dialog under its outcome line, with canopy's line
// naming the app the desktop would hand the link to. Cancelling the
// dialog gives the page back its input.
func TestExternalSchemeDialog(t *testing.T) {
	chromiumui.Relies(t, chromiumui.ExternalScheme)
	// A desktop of the test's own where My App handles myapp: links.
	root := t.TempDir()
	apps := filepath.Join(root, "data", "applications")
	if err := os.MkdirAll(apps, 0o755); err != nil {
		t.Fatal(err)
	}
	entry := "[Desktop Entry]\nType=Application\nName=My App\nExec=true %u\nMimeType=x-scheme-handler/myapp;\n"
	if err := os.WriteFile(filepath.Join(apps, "myapp.desktop"), []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_DATA_HOME", filepath.Join(root, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("XDG_DATA_DIRS", filepath.Join(root, "none"))
	t.Setenv("XDG_CONFIG_DIRS", filepath.Join(root, "none"))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Schemes</title>
<a href="myapp://thing/1">Open in My App</a>
<button onclick="this.textContent = 'Counted'">Count</button>`)
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	_, s := openWorkspace(ctx, t)
	if _, err := s.Run(ctx, action.Action{Kind: action.Navigate, URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(ctx, action.Action{Kind: action.Click, Target: `role:link name:"Open in My App"`})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("click:\n%s", r.Text)
	want := "myapp: link: the browser asks whether to hand it to the desktop, where myapp://thing/1 opens with My App (myapp.desktop)"
	if !strings.Contains(r.Text, want) {
		t.Errorf("the click's reply lacks %q", want)
	}
	// The dialog's title and buttons are in the browser's language: only
	// its shape is checked, and it is answered by its first button
	// (Cancel), found by role.
	m := regexp.MustCompile(`(?m)^opened dialog "[^"]+" (e[0-9]+)$`).FindStringSubmatch(r.Text)
	if m == nil {
		t.Fatalf("the click's reply does not show the browser's dialog")
	}
	if n := regexp.MustCompile(`(?m)^[+ ]+button "[^"]+" e[0-9]+`).FindAllString(r.Text, -1); len(n) < 2 {
		t.Errorf("the dialog shows %d buttons, want its two answers", len(n))
	}
	r, err = s.Run(ctx, action.Action{Kind: action.Click, Target: m[1] + " >> role:button nth:1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cancel:\n%s", r.Text)
	if !strings.Contains(r.Text, "closed dialog ") {
		t.Errorf("the cancel's reply does not say the dialog closed:\n%s", r.Text)
	}
	r, err = s.Run(ctx, action.Action{Kind: action.Click, Target: `role:button name:Count`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, "Counted") {
		t.Errorf("a click on the page after the dialog:\n%s", r.Text)
	}
}
