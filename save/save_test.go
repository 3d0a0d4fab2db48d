package save

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
)

// fixture is a downloads folder, a folder outside it with a file in it
// (the target an attack aims at), and an audit log beside them.
type fixture struct {
	dl, out, target, audit string
	f                      Folder
}

var (
	targetBytes = []byte("the file outside, as it was")
	auditBytes  = []byte(`{"kind":"earlier"}` + "\n")
	png         = []byte("\x89PNG new")
)

func newFixture(t *testing.T) fixture {
	t.Helper()
	root := t.TempDir()
	x := fixture{dl: filepath.Join(root, "downloads"), out: filepath.Join(root, "outside"), audit: filepath.Join(root, "audit.jsonl")}
	x.target = filepath.Join(x.out, "target.png")
	for _, d := range []string{x.dl, x.out} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, x.target, targetBytes)
	write(t, x.audit, auditBytes)
	x.f = Folder{Dir: x.dl, Audit: x.audit}
	return x
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, to, link string) {
	t.Helper()
	if err := os.Symlink(to, link); err != nil {
		t.Fatal(err)
	}
}

// same fails the test when the file at path no longer holds want.
func same(t *testing.T, what, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s %s changed: %q, %v", what, path, got, err)
	}
}

// permit is a permit for a screenshot (or print) from a policy at tier.
// It is asked for the action with no path, which every tier from the
// kind's allows, so the tests see what the writer refuses on its own,
// whatever the gate judged.
func permit(t *testing.T, tier action.Tier, k action.Kind) *policy.Permit {
	t.Helper()
	p, err := policy.New(tier).Permit(context.Background(), policy.Request{Action: action.Action{Kind: k}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func shot(path string) action.Action { return action.Action{Kind: action.Screenshot, Path: path} }

// denied fails the test unless err is a refusal of one line, naming
// neither the target nor where a link leads.
func denied(t *testing.T, what string, err error, hide ...string) {
	t.Helper()
	if !errors.Is(err, policy.ErrDenied) {
		t.Errorf("%s: %v, want a refusal", what, err)
		return
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("%s: the refusal is more than one line: %q", what, msg)
	}
	for _, h := range hide {
		if strings.Contains(msg, h) {
			t.Errorf("%s: the refusal names %s: %q", what, h, msg)
		}
	}
}

// TestWriteInside: a relative path lands in the downloads folder, with
// the folders it names made there; an absolute path into the folder does
// too; the line names the file.
func TestWriteInside(t *testing.T) {
	x := newFixture(t)
	p := permit(t, action.Observe, action.Screenshot)
	for name, want := range map[string]string{
		"a.png":                          "a.png",
		"sub/dir/b.png":                  "sub/dir/b.png",
		filepath.Join(x.dl, "c.png"):     "c.png",
		"sub/../d.png":                   "d.png",
		filepath.Join(x.dl, "sub/e.png"): "sub/e.png",
	} {
		s, err := x.f.Write(p, shot(name), "", png)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.Path != filepath.Join(x.dl, want) || s.Line != "screenshot saved to "+s.Path {
			t.Errorf("%s: saved %+v, want %s", name, s, filepath.Join(x.dl, want))
		}
		same(t, "the screenshot", s.Path, png)
	}
}

// TestWriteRelativeToDownloads: a relative path is taken in the downloads
// folder, never against canopy's working folder.
func TestWriteRelativeToDownloads(t *testing.T) {
	x := newFixture(t)
	t.Chdir(x.out)
	s, err := x.f.Write(permit(t, action.Observe, action.Screenshot), shot("target.png"), "", png)
	if err != nil {
		t.Fatal(err)
	}
	if s.Path != filepath.Join(x.dl, "target.png") {
		t.Errorf("saved at %s, want the downloads folder", s.Path)
	}
	same(t, "the file in the working folder", x.target, targetBytes)
	if _, err := os.Stat(filepath.Join(x.out, "target (1).png")); err == nil {
		t.Errorf("a file was written in the working folder")
	}
}

// TestWriteNotOver: a name that is taken gets a free one beside it; the
// file there is left as it was.
func TestWriteNotOver(t *testing.T) {
	x := newFixture(t)
	p := permit(t, action.Observe, action.Screenshot)
	old := []byte("an earlier screenshot")
	write(t, filepath.Join(x.dl, "s.png"), old)
	var got []string
	for range 2 {
		s, err := x.f.Write(p, shot("s.png"), "", png)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(s.Path))
	}
	if got[0] != "s (1).png" || got[1] != "s (2).png" {
		t.Errorf("saved as %v, want s (1).png, s (2).png", got)
	}
	same(t, "the file there", filepath.Join(x.dl, "s.png"), old)
}

// TestWriteFinalLink: a link at the file's own name is never followed,
// whether it points out of the folder, at the audit log or nowhere: the
// file is written beside it, and what it points at is left as it was.
func TestWriteFinalLink(t *testing.T) {
	x := newFixture(t)
	symlink(t, x.target, filepath.Join(x.dl, "out.png"))
	symlink(t, x.audit, filepath.Join(x.dl, "log.png"))
	symlink(t, filepath.Join(x.out, "new.png"), filepath.Join(x.dl, "dangling.png"))
	for _, tier := range []action.Tier{action.Observe, action.Sensitive} {
		p := permit(t, tier, action.Screenshot)
		for _, name := range []string{"out.png", "log.png", "dangling.png", filepath.Join(x.dl, "out.png")} {
			s, err := x.f.Write(p, shot(name), "", png)
			if err != nil {
				t.Errorf("%s at %s: %v", name, tier, err)
				continue
			}
			if filepath.Dir(s.Path) != x.dl || !strings.Contains(filepath.Base(s.Path), " (") {
				t.Errorf("%s at %s: saved at %s, want a free name beside the link", name, tier, s.Path)
			}
			if fi, err := os.Lstat(filepath.Join(x.dl, filepath.Base(name))); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s at %s: the link was replaced", name, tier)
			}
		}
	}
	same(t, "the file outside", x.target, targetBytes)
	same(t, "the audit log", x.audit, auditBytes)
	if _, err := os.Lstat(filepath.Join(x.out, "new.png")); err == nil {
		t.Errorf("the dangling link was written through")
	}
}

// TestWriteElsewhere: "..", an absolute path outside, a folder on the way
// that is a link out of the folder (or a link that leads nowhere) are
// elsewhere: refused below sensitive with one line that names neither the
// path nor where the link leads, nothing written.
func TestWriteElsewhere(t *testing.T) {
	x := newFixture(t)
	symlink(t, x.out, filepath.Join(x.dl, "dir"))
	symlink(t, filepath.Join(x.out, "gone"), filepath.Join(x.dl, "dangling"))
	names := []string{
		"../outside/target.png",
		"../outside/new.png",
		x.target,
		filepath.Join(x.out, "new.png"),
		"dir/target.png",
		"dir/new.png",
		"dir/sub/new.png",
		"dangling/new.png",
		filepath.Join(x.dl, "dir", "new.png"),
	}
	for _, name := range names {
		pl, err := x.f.Locate(name)
		if err != nil || pl.Inside() {
			t.Errorf("Locate(%s) = %+v, %v: want elsewhere", name, pl, err)
		}
		for _, tier := range []action.Tier{action.Observe, action.Act} {
			_, err := x.f.Write(permit(t, tier, action.Screenshot), shot(name), "", png)
			denied(t, name+" at "+tier.String(), err, x.out, name)
		}
	}
	same(t, "the file outside", x.target, targetBytes)
	if entries, _ := os.ReadDir(x.out); len(entries) != 1 {
		t.Errorf("files were written outside: %v", entries)
	}
}

// TestWriteSensitive: the sensitive tier saves elsewhere, the links on
// the way resolved, still never over a file and never on the audit log.
func TestWriteSensitive(t *testing.T) {
	x := newFixture(t)
	symlink(t, x.out, filepath.Join(x.dl, "dir"))
	p := permit(t, action.Sensitive, action.Screenshot)
	for name, want := range map[string]string{
		"../outside/target.png":                 "target (1).png",
		"dir/x.png":                             "x.png",
		filepath.Join(x.out, "deeper", "y.png"): filepath.Join("deeper", "y.png"),
	} {
		s, err := x.f.Write(p, shot(name), "", png)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.Path != filepath.Join(x.out, want) {
			t.Errorf("%s: saved at %s, want %s", name, s.Path, filepath.Join(x.out, want))
		}
	}
	same(t, "the file outside", x.target, targetBytes)
}

// TestWriteAuditLog: the audit log is refused at every tier, however it
// is named: in the downloads folder or not, by a relative or absolute
// path, through a link to its folder, or by a hard link.
func TestWriteAuditLog(t *testing.T) {
	x := newFixture(t)
	inside := filepath.Join(x.dl, "audit.jsonl")
	write(t, inside, auditBytes)
	symlink(t, filepath.Dir(x.audit), filepath.Join(x.dl, "up"))
	if err := os.Link(x.audit, filepath.Join(x.dl, "hard.jsonl")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		audit string
		names []string
	}{
		{x.audit, []string{x.audit, "../audit.jsonl", "up/audit.jsonl", "hard.jsonl", "sub/../../audit.jsonl"}},
		{inside, []string{"audit.jsonl", inside, "./audit.jsonl"}},
	}
	for _, c := range cases {
		f := Folder{Dir: x.dl, Audit: c.audit}
		for _, tier := range []action.Tier{action.Observe, action.Sensitive} {
			for _, name := range c.names {
				_, err := f.Write(permit(t, tier, action.Screenshot), shot(name), "", png)
				denied(t, name+" at "+tier.String(), err)
			}
		}
	}
	same(t, "the audit log", x.audit, auditBytes)
	same(t, "the audit log in the folder", inside, auditBytes)
	// The free names beside it are other files: a second screenshot
	// named like a taken file next to the log is written.
	f := Folder{Dir: x.dl, Audit: filepath.Join(x.dl, "s (1).png")}
	write(t, filepath.Join(x.dl, "s.png"), png)
	s, err := f.Write(permit(t, action.Observe, action.Screenshot), shot("s.png"), "", png)
	if err != nil || filepath.Base(s.Path) != "s (2).png" {
		t.Errorf("next to the log: %+v, %v; want s (2).png (the log's name skipped)", s, err)
	}
}

// TestWritePrint: print's PDF without a path goes under the name the
// source picked, in the downloads folder, with its size in the line.
func TestWritePrint(t *testing.T) {
	x := newFixture(t)
	p := permit(t, action.Act, action.Print)
	s, err := x.f.Write(p, action.Action{Kind: action.Print}, "Where am I.pdf", bytes.Repeat([]byte("x"), 3000))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(x.dl, "Where am I.pdf"); s.Path != want || !regexp.MustCompile(`^saved the page as PDF: .+ \(3 KB\)$`).MatchString(s.Line) {
		t.Errorf("saved %+v, want %s", s, want)
	}
	for _, bad := range []string{"", "../x.pdf", "a/b.pdf", "/x.pdf"} {
		if _, err := x.f.Write(p, action.Action{Kind: action.Print}, bad, png); err == nil {
			t.Errorf("fallback %q: written", bad)
		}
	}
}

// TestWriteNeedsItsPermit: a permit for another kind, or none, writes
// nothing; a name that is a folder is no file.
func TestWriteNeedsItsPermit(t *testing.T) {
	x := newFixture(t)
	if _, err := x.f.Write(nil, shot("a.png"), "", png); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("no permit: %v", err)
	}
	if _, err := x.f.Write(permit(t, action.Sensitive, action.Print), shot("a.png"), "", png); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("print's permit: %v", err)
	}
	for _, name := range []string{"", ".", "..", "sub/", x.dl, "/", "sub/.."} {
		if _, err := x.f.Write(permit(t, action.Sensitive, action.Screenshot), shot(name), "", png); err == nil {
			t.Errorf("%q: written", name)
		}
	}
	if entries, _ := os.ReadDir(x.dl); len(entries) != 0 {
		t.Errorf("written: %v", entries)
	}
}

// TestNoFolder: a session with no downloads folder saves only at
// sensitive; a relative path is then taken against the working folder.
func TestNoFolder(t *testing.T) {
	x := newFixture(t)
	t.Chdir(x.out)
	f := Folder{Audit: x.audit}
	if _, err := f.Write(permit(t, action.Act, action.Screenshot), shot("n.png"), "", png); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("at act: %v", err)
	}
	s, err := f.Write(permit(t, action.Sensitive, action.Screenshot), shot("n.png"), "", png)
	if err != nil || s.Path != filepath.Join(x.out, "n.png") {
		t.Errorf("at sensitive: %+v, %v", s, err)
	}
}
