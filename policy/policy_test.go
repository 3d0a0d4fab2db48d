package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
)

func TestPermit(t *testing.T) {
	ctx := context.Background()
	p := New(action.Act)
	click := action.Action{Kind: action.Click, Target: "e1"}
	permit, err := p.Permit(ctx, Request{Action: click, Target: `button "Save" e1`})
	if err != nil {
		t.Fatal(err)
	}
	if err := permit.Allows(action.Click); err != nil {
		t.Errorf("a click permit does not allow a click: %v", err)
	}
	if err := permit.Allows(action.Upload); !errors.Is(err, ErrDenied) {
		t.Errorf("a click permit allows an upload: %v", err)
	}
	var none *Permit
	if err := none.Allows(action.Click); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "executor") {
		t.Errorf("a nil permit: %v", err)
	}
	if err := (&Permit{kind: action.Click}).Allows(action.Click); !errors.Is(err, ErrDenied) {
		t.Errorf("a forged zero permit allows a click: %v", err)
	}
	_, err = p.Permit(ctx, Request{Action: action.Action{Kind: action.Evaluate, Text: "1"}})
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "evaluate needs the sensitive tier; this session allows act") {
		t.Errorf("evaluate under act: %v", err)
	}
	obs := New(action.Observe)
	if _, err := obs.Permit(ctx, Request{Action: click, Target: `button "Save" e1`}); err == nil || !strings.Contains(err.Error(), `click button "Save" e1 needs the act tier`) {
		t.Errorf("click under observe: %v", err)
	}
	if _, err := obs.Permit(ctx, Request{Action: action.Action{Kind: action.Snapshot}}); err != nil {
		t.Errorf("snapshot under observe: %v", err)
	}
	// A file saved outside the downloads folder: the refusal names the
	// rule and how to allow it, not the path.
	_, err = p.Permit(ctx, Request{Action: action.Action{Kind: action.Screenshot, Path: "/home/u/.ssh/x.png"}})
	if !errors.Is(err, ErrDenied) || err.Error() != "screenshot needs the sensitive tier to write a file outside the downloads folder; this session allows act (--allow sensitive): not permitted" {
		t.Errorf("screenshot outside under act: %v", err)
	}
	if permit, err := obs.Permit(ctx, Request{Action: action.Action{Kind: action.Screenshot, Path: "x.png"}}); err != nil || permit.SavesAnywhere() {
		t.Errorf("screenshot inside under observe: %v, saves anywhere %v", err, permit.SavesAnywhere())
	}
	if permit, err := New(action.Sensitive).Permit(ctx, Request{Action: action.Action{Kind: action.Print}}); err != nil || !permit.SavesAnywhere() {
		t.Errorf("print under sensitive: %v, saves anywhere %v", err, permit.SavesAnywhere())
	}
	if (&Permit{kind: action.Print}).SavesAnywhere() {
		t.Errorf("a forged permit saves anywhere")
	}
}

// TestOpenAppRule: at act, open_app starts installed desktop applications
// that run nothing they are given (no shells, terminals, console programs
// or launchers of executables), with http(s) URLs and files from the
// downloads and files folders, a browser with no files; and the programs
// Apps names (with anything); at sensitive, any program. Checked in a
// batch before any step runs.
func TestOpenAppRule(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_DATA_DIRS", filepath.Join(data, "none"))
	apps := filepath.Join(data, "applications")
	if err := os.MkdirAll(apps, 0o755); err != nil {
		t.Fatal(err)
	}
	entries := map[string]string{
		"editor.desktop":   "[Desktop Entry]\nType=Application\nName=Editor\nExec=env LANG=C \"/usr/bin/true\" %F\n",
		"hidden.desktop":   "[Desktop Entry]\nType=Application\nHidden=true\nExec=hidden-app %U\n",
		"link.desktop":     "[Desktop Entry]\nType=Link\nURL=https://example.com\nExec=linked-app\n",
		"other.desktop":    "[Other Section]\nExec=not-an-entry\n[Desktop Entry]\nType=Application\nExec=mousepad %U\nMimeType=text/plain;\n",
		"python.desktop":   "[Desktop Entry]\nType=Application\nExec=/usr/bin/python3\nTerminal=true\n",
		"vim.desktop":      "[Desktop Entry]\nType=Application\nExec=vim %F\nTerminal=true\nMimeType=text/plain;application/x-shellscript;\n",
		"term.desktop":     "[Desktop Entry]\nType=Application\nExec=zutty\nCategories=System;TerminalEmulator;\n",
		"wine.desktop":     "[Desktop Entry]\nType=Application\nExec=wine start /unix %f\nMimeType=application/x-ms-dos-executable;\n",
		"rbash.desktop":    "[Desktop Entry]\nType=Application\nExec=rbash\n",
		"browser.desktop":  "[Desktop Entry]\nType=Application\nExec=chromium %U\nMimeType=text/html;x-scheme-handler/http;x-scheme-handler/https;\n",
		"settings.desktop": "[Desktop Entry]\nType=Application\nExec=mousepad --preferences\nTerminal=true\n",
	}
	for name, body := range entries {
		if err := os.WriteFile(filepath.Join(apps, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	downloads, files := t.TempDir(), t.TempDir()
	ctx := context.Background()
	act := New(action.Act, Apps("sh"), Files(files))
	open := func(p *Policy, cmd string, args ...string) error {
		_, err := p.Permit(ctx, Request{Action: action.Action{Kind: action.OpenApp, Command: cmd, Args: args}, Downloads: downloads})
		return err
	}
	for _, ok := range [][]string{
		{"/usr/bin/true", filepath.Join(downloads, "notes.txt")}, {"true", "https://example.com"},
		{"mousepad", filepath.Join(files, "a b.txt")}, {"mousepad"}, {"chromium", "http://example.com/x"},
		{"sh", "-c", "anything"}, {"/bin/sh", "-c", "anything"},
	} {
		if err := open(act, ok[0], ok[1:]...); err != nil {
			t.Errorf("open_app %q at act: %v", ok, err)
		}
	}
	for _, no := range []struct {
		args []string
		why  string
	}{
		{[]string{"true", "--option"}, "not other files, options or commands"},
		{[]string{"mousepad", "-c"}, "not other files, options or commands"},
		{[]string{"mousepad", "/etc/shadow"}, "not other files, options or commands"},
		{[]string{"mousepad", filepath.Join(downloads, "..", "x.txt")}, "not other files, options or commands"},
		{[]string{"mousepad", "notes.txt"}, "not other files, options or commands"},
		{[]string{"mousepad", "file:///etc/passwd"}, "is given http(s) URLs and files from"},
		{[]string{"mousepad", "javascript:alert(1)"}, "is given http(s) URLs and files from"},
		{[]string{"/usr/bin/python3", filepath.Join(downloads, "evil.py")}, "a console program"},
		{[]string{"vim", "+!id > /tmp/x", "+qa!"}, "a console program"},
		{[]string{"zutty"}, "a terminal or a launcher of programs"},
		{[]string{"wine", filepath.Join(downloads, "setup.exe")}, "a terminal or a launcher of programs"},
		{[]string{"rbash"}, "a shell"},
		{[]string{"chromium", filepath.Join(downloads, "page.html")}, "a web browser opens a file as a file: URL"},
		{[]string{"hidden-app"}, "starts installed desktop applications"},
		{[]string{"linked-app"}, "starts installed desktop applications"},
		{[]string{"not-an-entry"}, "starts installed desktop applications"},
		{[]string{"bash", "-c", "x"}, "a shell"},
		{[]string{"/tmp/mousepad"}, "starts installed desktop applications"},
	} {
		err := open(act, no.args[0], no.args[1:]...)
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "needs the sensitive tier") || !strings.Contains(err.Error(), no.why) || strings.Contains(err.Error(), "\n") {
			t.Errorf("open_app %q at act: %v, want a refusal saying %q", no.args, err, no.why)
		}
	}
	for _, cmd := range [][]string{{"bash", "-c", "x"}, {"/usr/bin/python3", "/tmp/evil.py"}, {"chromium", "/tmp/page.html"}} {
		if err := open(New(action.Sensitive), cmd[0], cmd[1:]...); err != nil {
			t.Errorf("open_app %q at sensitive: %v", cmd, err)
		}
	}
	batch := action.Action{Kind: action.Batch, Steps: []action.Action{
		{Kind: action.Click, Target: "e1"}, {Kind: action.OpenApp, Command: "bash"},
	}}
	if _, err := act.Permit(ctx, Request{Action: batch}); err == nil || !strings.Contains(err.Error(), "step 2: open_app bash") {
		t.Errorf("a batch with a refused step: %v", err)
	}
	// --domains judges the URLs an application is given, at every tier.
	fenced := New(action.Sensitive, Domains("example.com"))
	if _, err := fenced.Permit(ctx, Request{Action: action.Action{Kind: action.OpenApp, Command: "chromium", Args: []string{"https://evil.test/x"}}}); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "evil.test") {
		t.Errorf("open_app with a URL --domains refuses: %v", err)
	}
}

// TestOpenAppWithin: the permit for open_app at act holds its file
// arguments to the downloads and files folders with links resolved at
// launch: a link in the downloads folder that leads out is refused.
func TestOpenAppWithin(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_DATA_DIRS", filepath.Join(data, "none"))
	if err := os.MkdirAll(filepath.Join(data, "applications"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "applications", "m.desktop"), []byte("[Desktop Entry]\nType=Application\nExec=mousepad %U\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	downloads := t.TempDir()
	in, out := filepath.Join(downloads, "notes.txt"), filepath.Join(downloads, "shadow.txt")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", out); err != nil {
		t.Fatal(err)
	}
	p, err := New(action.Act).Permit(context.Background(), Request{Action: action.Action{Kind: action.OpenApp, Command: "mousepad", Args: []string{out}}, Downloads: downloads})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Within([]string{in}); err != nil {
		t.Errorf("a file in the downloads folder: %v", err)
	}
	if err := p.Within([]string{out}); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "open_app of "+out+" needs the sensitive tier: it leads out of") || strings.Contains(err.Error(), "hostname") {
		t.Errorf("a link out of the downloads folder: %v", err)
	}
}

// TestUploadRule: uploads at act come from the files folder, judged on the
// path's text.
func TestUploadRule(t *testing.T) {
	ctx := context.Background()
	up := func(p *Policy, downloads string, paths ...string) error {
		_, err := p.Permit(ctx, Request{Action: action.Action{Kind: action.Upload, Target: "e1", Paths: paths}, Downloads: downloads})
		return err
	}
	act := New(action.Act)
	if err := up(act, "/dl", "/dl/a.txt", "/dl/sub/b.txt"); err != nil {
		t.Errorf("from the downloads folder: %v", err)
	}
	for _, p := range []string{"/dl", "/dl/../etc/passwd", "/dlx/a.txt", "/etc/shadow", "a.txt"} {
		if err := up(act, "/dl", "/dl/ok.txt", p); !errors.Is(err, ErrDenied) {
			t.Errorf("upload of %s: %v, want a refusal", p, err)
		}
	}
	if err := up(act, "", "/dl/a.txt"); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "the session's downloads folder") {
		t.Errorf("no folder known: %v", err)
	}
	files := New(action.Act, Files("/srv/files/"))
	if err := up(files, "/dl", "/srv/files/x.pdf"); err != nil {
		t.Errorf("from --files: %v", err)
	}
	if err := up(files, "/dl", "/dl/a.txt"); !errors.Is(err, ErrDenied) {
		t.Errorf("from the downloads folder with --files set: %v", err)
	}
	if err := up(New(action.Sensitive), "/dl", "/etc/hosts"); err != nil {
		t.Errorf("at sensitive: %v", err)
	}
}

// TestPermitWithin: an upload's permit knows its folder; a link in it that
// leads out is refused, at sensitive anything goes.
func TestPermitWithin(t *testing.T) {
	ctx := context.Background()
	dir, out := t.TempDir(), t.TempDir()
	inside, secret := filepath.Join(dir, "a.txt"), filepath.Join(out, "secret.txt")
	for _, f := range []string{inside, secret} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	req := Request{Action: action.Action{Kind: action.Upload, Target: "e1", Paths: []string{inside, link}}, Downloads: dir}
	permit, err := New(action.Act).Permit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := permit.Within([]string{inside}); err != nil {
		t.Errorf("a file in the folder: %v", err)
	}
	if err := permit.Within([]string{inside, link}); !errors.Is(err, ErrDenied) {
		t.Errorf("a link out of the folder: %v, want a refusal", err)
	}
	wide, err := New(action.Sensitive).Permit(ctx, req)
	if err != nil || wide.Within([]string{link}) != nil {
		t.Errorf("at sensitive: %v", err)
	}
}
