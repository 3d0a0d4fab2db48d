package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/mcptest"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/mcp"
)

// TestFlagship is the flow, driven through MCP the way an agent
// would: a page's download link opens the browser's native Save dialog
// (on the virtual desktop), the agent names the file and saves it, opens it
// in mousepad, types into it and saves it again. In both dialog modes:
// Chromium's default GTK 3 dialog, which only an event finds, and the GTK 4
// one, which is its own application.
func TestFlagship(t *testing.T) {
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"gtk3", nil},
		{"gtk4", []string{"--gtk-version=4"}},
	} {
		t.Run(mode.name, func(t *testing.T) { flagship(t, mode.name, mode.args) })
	}
}

func flagship(t *testing.T, mode string, browserArgs []string) {
	dir := t.TempDir()
	srv, err := mcp.New(mcp.Options{Desktop: true, Browser: browser.Options{
		AskDownloads: true, DownloadDir: dir, Args: browserArgs,
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cs := mcptest.Connect(t, srv.SDK())

	r := call(t, cs, "navigate", map[string]any{"url": testSite.URL("/download.html")})
	if !strings.Contains(r, `link "Download report"`) {
		t.Fatalf("navigate reply lacks the link:\n%s", r)
	}
	r = call(t, cs, "click", map[string]any{"target": `role:link name:"Download report"`})
	t.Logf("click:\n%s", r)
	if !strings.Contains(r, `"Save File"`) {
		// The dialog may take a moment longer than the click's settling.
		r = call(t, cs, "wait", map[string]any{"target": `window:"Save File"`, "timeout": 10000})
		t.Logf("wait:\n%s", r)
	}
	r = call(t, cs, "type", map[string]any{"target": `window:"Save File" >> role:textbox name:Name`, "text": "q3-report.txt", "clear": true})
	// GTK 4.8's entry offers EditableText but no Text to read back, so
	// there the typed name shows only in the file that lands.
	if mode == "gtk3" && !strings.Contains(r, `"q3-report.txt"`) {
		t.Errorf("type reply does not show the new name:\n%s", r)
	}
	t.Logf("type:\n%s", r)
	r = call(t, cs, "click", map[string]any{"target": `window:"Save File" >> role:button name:Save`})
	t.Logf("save:\n%s", r)
	if !strings.Contains(r, "closed dialog \"Save File\"") {
		t.Errorf("save reply does not say the dialog closed:\n%s", r)
	}
	path := filepath.Join(dir, "q3-report.txt")
	waitFile(t, path, site.ReportText)

	r = call(t, cs, "open_app", map[string]any{"command": "mousepad", "args": []string{path}})
	t.Logf("open_app:\n%s", r)
	if !strings.Contains(r, "q3-report.txt") {
		t.Errorf("open_app reply does not show the file's window:\n%s", r)
	}
	r = call(t, cs, "type", map[string]any{"target": `app:mousepad >> role:textbox state:multiline`, "text": "edited by canopy\n"})
	t.Logf("type in mousepad:\n%s", r)
	r = call(t, cs, "press", map[string]any{"keys": "ctrl+s", "target": `app:mousepad >> role:textbox state:multiline`})
	t.Logf("ctrl+s:\n%s", r)
	waitFile(t, path, site.ReportText+"edited by canopy\n")
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
