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
// (with files and URLs, not options) and the programs Apps names (with
// anything); at sensitive, any program. Checked in a batch before any step
// runs.
func TestOpenAppRule(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_DATA_DIRS", filepath.Join(data, "none"))
	apps := filepath.Join(data, "applications")
	if err := os.MkdirAll(apps, 0o755); err != nil {
		t.Fatal(err)
	}
	entries := map[string]string{
		"editor.desktop": "[Desktop Entry]\nType=Application\nName=Editor\nExec=env LANG=C \"/usr/bin/true\" %F\n",
		"hidden.desktop": "[Desktop Entry]\nType=Application\nHidden=true\nExec=hidden-app %U\n",
		"link.desktop":   "[Desktop Entry]\nType=Link\nURL=https://example.com\nExec=linked-app\n",
		"other.desktop":  "[Other Section]\nExec=not-an-entry\n[Desktop Entry]\nType=Application\nExec=mousepad %U\n",
	}
	for name, body := range entries {
		if err := os.WriteFile(filepath.Join(apps, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	act := New(action.Act, Apps("sh"))
	open := func(p *Policy, cmd string, args ...string) error {
		_, err := p.Permit(ctx, Request{Action: action.Action{Kind: action.OpenApp, Command: cmd, Args: args}})
		return err
	}
	for _, ok := range [][]string{
		{"/usr/bin/true", "notes.txt"}, {"true", "https://example.com"}, {"mousepad", "/tmp/a b.txt"},
		{"sh", "-c", "anything"}, {"/bin/sh", "-c", "anything"},
	} {
		if err := open(act, ok[0], ok[1:]...); err != nil {
			t.Errorf("open_app %q at act: %v", ok, err)
		}
	}
	for _, no := range [][]string{
		{"true", "--option"}, {"mousepad", "-c"}, {"hidden-app"}, {"linked-app"}, {"not-an-entry"}, {"bash", "-c", "x"}, {"/tmp/mousepad"},
	} {
		err := open(act, no[0], no[1:]...)
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "needs the sensitive tier") {
			t.Errorf("open_app %q at act: %v, want a refusal", no, err)
		}
	}
	if err := open(New(action.Sensitive), "bash", "-c", "x"); err != nil {
		t.Errorf("open_app bash at sensitive: %v", err)
	}
	batch := action.Action{Kind: action.Batch, Steps: []action.Action{
		{Kind: action.Click, Target: "e1"}, {Kind: action.OpenApp, Command: "bash"},
	}}
	if _, err := act.Permit(ctx, Request{Action: batch}); err == nil || !strings.Contains(err.Error(), "step 2: open_app bash") {
		t.Errorf("a batch with a refused step: %v", err)
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
