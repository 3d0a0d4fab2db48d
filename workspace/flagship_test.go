//go:build linux

package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/chromiumui"
	"github.com/canopy-dev/canopy/internal/desktoptest"
	"github.com/canopy-dev/canopy/internal/mcptest"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/mcp"
	"github.com/canopy-dev/canopy/xinput"
)

// Selectors of the flagship that hold whoever draws the Save dialog: the
// portal's is titled "All Files", Chromium's own "Save File", and each
// says "Name" and "Save" in the user's language only.
const (
	nameField  = `role:dialog >> role:textbox name:Name`
	saveButton = `role:dialog >> role:button name:Save`
	editorText = `app:mousepad >> role:textbox state:focused`
)

// flagshipModes are the three ways a Save dialog is drawn: by the desktop
// portal (GNOME, KDE, a fresh Debian with zenity), and by Chromium itself
// in GTK 3 (its default) and GTK 4 on a desktop without the portal.
var flagshipModes = []struct {
	name        string
	desktop     desktoptest.Mode
	browserArgs []string
	portal      bool // the dialog is the portal's, not the browser's
}{
	{"portal", desktoptest.Modes[0], nil, true},
	{"gtk3", desktoptest.Modes[1], nil, false},
	{"gtk4", desktoptest.Modes[1], []string{"--gtk-version=4"}, false},
}

// openedDialog is the outcome line of a desktop dialog that opened, with
// the application that drew it.
var openedDialog = regexp.MustCompile(`(?m)^opened dialog "([^"]+)" \(([^)]+)\) e[0-9]+$`)

// TestFlagship is the flow an agent drives through MCP: a page's download
// link opens a native Save dialog on the (virtual) desktop, the agent names
// the file and saves it, opens it in mousepad, types into the editor that
// open_app left focused, and saves it again. On a desktop with the portal
// and on one without it, in Chromium's GTK 3 and GTK 4 modes.
func TestFlagship(t *testing.T) {
	chromiumui.Relies(t, chromiumui.SaveDialog, chromiumui.Bubbles)
	for _, mode := range flagshipModes {
		t.Run(mode.name, func(t *testing.T) {
			desktoptest.Use(t, mode.desktop)
			flagship(t, mode.browserArgs, mode.portal)
		})
	}
}

func flagship(t *testing.T, browserArgs []string, portal bool) {
	dir := t.TempDir()
	srv, err := mcp.New(mcp.Options{Session: canopy.Config{Desktop: true, Browser: browser.Options{
		AskDownloads: true, DownloadDir: dir, Args: browserArgs,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cs := mcptest.Connect(t, srv.SDK())

	r := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/download.html")})
	if !strings.Contains(r, `link "Download report"`) {
		t.Fatalf("navigate reply lacks the link:\n%s", r)
	}
	if strings.Contains(r, "portal") {
		t.Errorf("navigate reply shows a portal, which has no window:\n%s", r)
	}
	r = call(t, cs, "click", map[string]any{"target": `role:link name:"Download report"`})
	t.Logf("click:\n%s", r)
	checkDialogOpened(t, cs, r, portal)
	checkBrowserNoise(t, "click", r)

	// At act, the dialog saves only in the downloads folder: a path
	// elsewhere typed as the name is refused (issue 30).
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if text, isErr := mcptest.Call(t, cs, "type", map[string]any{"target": nameField, "text": outside, "clear": true}); !isErr || !strings.Contains(text, "a file chooser needs the sensitive tier") {
		t.Errorf("typing a path outside the downloads folder into the Save dialog: (%q, %v), want a refusal", text, isErr)
	}
	r = call(t, cs, "type", map[string]any{"target": nameField, "text": "q3-report.txt", "clear": true})
	t.Logf("type:\n%s", r)
	r = call(t, cs, "click", map[string]any{"target": saveButton})
	t.Logf("save:\n%s", r)
	if !strings.Contains(r, "closed dialog ") {
		t.Errorf("save reply does not say the dialog closed:\n%s", r)
	}
	checkBrowserNoise(t, "save", r)
	path := filepath.Join(dir, "q3-report.txt")
	waitFile(t, path, site.ReportText)

	// The dialog again (GTK 4.8 gives it another role the second time),
	// cancelled this time.
	r = call(t, cs, "click", map[string]any{"target": `role:link name:"Download report"`})
	checkDialogOpened(t, cs, r, portal)
	r = call(t, cs, "click", map[string]any{"target": `role:dialog >> role:button name:Cancel`})
	t.Logf("cancel:\n%s", r)
	if !strings.Contains(r, "closed dialog ") || !strings.Contains(r, "download canceled") {
		t.Errorf("cancel reply does not say the dialog closed and the download was cancelled:\n%s", r)
	}

	r = call(t, cs, "open_app", map[string]any{"command": "mousepad", "args": []string{path}})
	t.Logf("open_app:\n%s", r)
	if !regexp.MustCompile(`(?m)^opened window "[^"]*q3-report\.txt[^"]*" \(mousepad\) e[0-9]+$`).MatchString(r) {
		t.Errorf("open_app reply does not show the file's window and its owner:\n%s", r)
	}
	if !regexp.MustCompile(`(?m)^[+ ]+textbox e[0-9]+ focused multiline`).MatchString(r) {
		t.Errorf("open_app reply does not show the editor focused:\n%s", r)
	}
	// The editor has the focus, its caret at the start: typing goes there.
	r = call(t, cs, "type", map[string]any{"target": editorText, "text": "edited by canopy\n"})
	t.Logf("type in mousepad:\n%s", r)
	r = call(t, cs, "press", map[string]any{"keys": "ctrl+s", "target": editorText})
	t.Logf("ctrl+s:\n%s", r)
	waitFile(t, path, "edited by canopy\n"+site.ReportText)
}

// checkDialogOpened checks that the click's reply says a dialog opened,
// with the application that drew it: the portal's process, or the browser.
// The click settles once the desktop says a window opened; should the
// dialog still be drawing then, the test waits for it and reads its owner
// from a snapshot, and says so in its log.
func checkDialogOpened(t *testing.T, cs *sdk.ClientSession, reply string, portal bool) {
	t.Helper()
	owner := ""
	if m := openedDialog.FindStringSubmatch(reply); m != nil {
		owner = m[2]
	} else {
		t.Logf("the click's reply does not show the dialog yet:\n%s", reply)
		call(t, cs, "wait", map[string]any{"target": `role:dialog state:modal`, "timeout_ms": 10000})
		owner = dialogOwner(call(t, cs, "snapshot", map[string]any{"full": true}))
		if owner == "" {
			t.Fatal("no modal dialog in the snapshot after waiting for one")
		}
	}
	if byBrowser := strings.EqualFold(owner, "chromium"); portal == byBrowser {
		t.Errorf("the dialog is drawn by %q; want the portal's: %v", owner, portal)
	}
}

// dialogOwner returns the application that holds the modal dialog in a
// desktop snapshot's text, or "".
func dialogOwner(snapshot string) string {
	owner := ""
	for _, l := range strings.Split(snapshot, "\n") {
		if m := appLine.FindStringSubmatch(l); m != nil {
			owner = m[1]
		}
		if strings.HasPrefix(strings.TrimSpace(l), "dialog ") && strings.Contains(l, " modal") {
			return owner
		}
	}
	return ""
}

// appLine is an application's line in a desktop snapshot.
var appLine = regexp.MustCompile(`^application "([^"]+)"`)

// checkBrowserNoise checks that a reply names no browser window by a bare
// role (Chromium's link status bubble) and no dialog that needs no answer
// (its download bubble).
func checkBrowserNoise(t *testing.T, what, reply string) {
	t.Helper()
	if regexp.MustCompile(`(?m)^(opened )?window e[0-9]+$|(?m)^\+ +window e[0-9]+$`).MatchString(reply) {
		t.Errorf("%s reply shows an unnamed window:\n%s", what, reply)
	}
	if strings.Contains(reply, "opened dialog \"Recent download history\"") || strings.Contains(reply, `dialog "Recent download history"`) {
		t.Errorf("%s reply shows the download bubble as a dialog:\n%s", what, reply)
	}
}

// call calls a tool and returns its text; a tool error fails the test.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := mcptest.Call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %v: %s", tool, args, text)
	}
	return text
}

// waitFile waits until path holds want. The file is written by another
// process (the browser, the editor) after the reply: this polls the disk,
// with a cap, since no event reports it.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var got []byte
	for time.Now().Before(deadline) {
		got, _ = os.ReadFile(path)
		if string(got) == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s holds %q, want %q", path, got, want)
}

// TestPortalDies: the portal that draws the Save dialog dies while the
// dialog is up. An action on the dialog is a one-line error, the server
// keeps serving, and the next download brings up a new portal (the bus
// starts it again) whose dialog saves the file.
func TestPortalDies(t *testing.T) {
	chromiumui.Relies(t, chromiumui.SaveDialog)
	desktoptest.Use(t, desktoptest.Modes[0])
	ctx := context.Background()
	dir := t.TempDir()
	srv, err := mcp.New(mcp.Options{Session: canopy.Config{Desktop: true, Browser: browser.Options{AskDownloads: true, DownloadDir: dir}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cs := mcptest.Connect(t, srv.SDK())
	call(t, cs, "navigate", map[string]any{"url": testSite.URL("/download.html")})

	x, err := xinput.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	before, err := x.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := call(t, cs, "click", map[string]any{"target": `role:link name:"Download report"`})
	checkDialogOpened(t, cs, r, true)
	win := waitNewXWindow(ctx, t, x, before, 10*time.Second)
	if err := syscall.Kill(win.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the portal (pid %d): %v", win.PID, err)
	}
	text, isErr := mcptest.Call(t, cs, "click", map[string]any{"target": saveButton})
	t.Logf("save after the portal died: %s", text)
	if !isErr || strings.Contains(strings.TrimSpace(text), "\n") {
		t.Errorf("save after the portal died: isError %v, %q; want a one-line error", isErr, text)
	}

	r = call(t, cs, "click", map[string]any{"target": `role:link name:"Download report"`})
	checkDialogOpened(t, cs, r, true)
	call(t, cs, "type", map[string]any{"target": nameField, "text": "again.txt", "clear": true})
	call(t, cs, "click", map[string]any{"target": saveButton})
	waitFile(t, filepath.Join(dir, "again.txt"), site.ReportText)
}
