package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesStayInDownloads (issue 30): through the shell (canopy sh -c) at
// observe and act and canopy do at act, a screenshot's path out of the
// downloads folder — "..", a link elsewhere to a file, a folder in the
// folder that links out of it — and print "../x.pdf" at act are refused
// in one line that names the rule and how to allow it, and the file there
// keeps its bytes. Inside the folder the screenshot is saved; a link at
// its name is not followed: the file goes beside it.
func TestFilesStayInDownloads(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real Chromium")
	}
	page := serve(t).URL("/login.html")
	root := t.TempDir()
	dl, out := filepath.Join(root, "downloads"), filepath.Join(root, "out")
	target := filepath.Join(out, "target.png")
	kept := map[string][]byte{
		target:                       []byte("the target, as it was"),
		filepath.Join(root, "x.png"): []byte("x.png, as it was"),
		filepath.Join(root, "x.pdf"): []byte("x.pdf, as it was"),
	}
	for _, d := range []string{dl, out} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for p, b := range kept {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(out, "link.png") // a link elsewhere, to the target
	for _, l := range [][2]string{{target, link}, {out, filepath.Join(dl, "dir")}, {target, filepath.Join(dl, "in.png")}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	checkKept := func(what string) {
		t.Helper()
		for p, want := range kept {
			if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: %s holds %q, %v", what, p, got, err)
			}
		}
		if entries, _ := os.ReadDir(out); len(entries) != 2 {
			t.Errorf("%s: files written outside: %v", what, entries)
		}
	}

	type surface struct {
		name string
		args func(step string) []string
	}
	surfaces := []surface{
		{"sh observe", func(step string) []string { return []string{"sh", "--allow", "observe", "--downloads", dl, "-c", step} }},
		{"sh act", func(step string) []string { return []string{"sh", "--allow", "act", "--downloads", dl, "-c", step} }},
		{"do act", func(step string) []string { return []string{"do", "--allow", "act", "--downloads", dl, page, step} }},
	}
	for _, s := range surfaces {
		tier := strings.Fields(s.name)[1]
		steps := []string{`screenshot "../x.png"`, `screenshot "` + link + `"`, `screenshot "dir/target.png"`, `screenshot "dir/new.png"`}
		if tier == "act" {
			steps = append(steps, `print "../x.pdf"`)
		}
		for _, step := range steps {
			code, stdout, errs := run(t, s.args(step)...)
			kind := strings.Fields(step)[0]
			msg := strings.TrimSuffix(errs, "\n")
			if code != ExitInput || stdout != "" || strings.Contains(msg, "\n") ||
				!strings.HasSuffix(msg, kind+" needs the sensitive tier to write a file outside the downloads folder; this session allows "+tier+" (--allow sensitive): not permitted") {
				t.Errorf("%s: %s: exit %d, stdout %q, stderr %q", s.name, step, code, stdout, errs)
			}
			if strings.Contains(msg, target) {
				t.Errorf("%s: %s: the refusal tells where the link leads: %q", s.name, step, msg)
			}
			checkKept(s.name + ": " + step)
		}
	}

	// Inside the folder: saved, and beside the link at in.png.
	code, stdout, errs := run(t, "sh", "--allow", "observe", "--downloads", dl, "-c", `screenshot "shot.png"; screenshot "in.png"; screenshot`)
	want := "screenshot saved to " + filepath.Join(dl, "shot.png") + "\nscreenshot saved to " + filepath.Join(dl, "in (1).png") +
		"\nscreenshot saved to " + filepath.Join(dl, "screenshot.png") + "\n"
	if code != ExitOK || stdout != want || errs != "" {
		t.Errorf("sh inside: exit %d, stdout %q, stderr %q; want %q", code, stdout, errs, want)
	}
	code, stdout, errs = run(t, "do", "--downloads", dl, page, `screenshot "shot.png"; print "page.pdf"`)
	if code != ExitOK || !strings.Contains(stdout, "screenshot saved to "+filepath.Join(dl, "shot (1).png")+"\n") ||
		!strings.Contains(stdout, "saved the page as PDF: "+filepath.Join(dl, "page.pdf")) || errs != "" {
		t.Errorf("do inside: exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	for _, name := range []string{"shot.png", "in (1).png", "screenshot.png", "shot (1).png"} {
		if b, err := os.ReadFile(filepath.Join(dl, name)); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: not a PNG: %v", name, err)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dl, "in.png")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link at in.png was replaced: %v", err)
	}
	checkKept("inside")
}

// TestDoNotesTemporaryDownloads: without --downloads, canopy do says
// that the files its steps saved go with the session's folder.
func TestDoNotesTemporaryDownloads(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real Chromium")
	}
	code, stdout, errs := run(t, "do", serve(t).URL("/login.html"), `screenshot`)
	if code != ExitOK || !strings.HasPrefix(stdout, "screenshot saved to ") ||
		!strings.Contains(errs, "are removed with it now; give --downloads DIR to keep them") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	if dir := filepath.Dir(strings.TrimSpace(strings.TrimPrefix(stdout, "screenshot saved to "))); dir != "." {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("the temporary downloads folder %s is left behind", dir)
		}
	}
}
