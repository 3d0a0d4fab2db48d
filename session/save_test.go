package session

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/tree"
)

// fileSource is fakeSource whose screenshots and prints make files'
// contents, as a browser's do: the executor saves them.
type fileSource struct{ fakeSource }

var shotPNG = []byte("\x89PNG from the source")

func (f *fileSource) Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (Output, error) {
	if _, err := f.fakeSource.Do(ctx, p, a, target, to); err != nil {
		return Output{}, err
	}
	switch a.Kind {
	case action.Screenshot:
		return Output{Image: shotPNG}, nil
	case action.Print:
		return Output{File: &File{Name: "Login.pdf", Data: []byte("%PDF")}}, nil
	}
	return Output{}, nil
}

// savingSession is a session at tier over a fileSource, with its
// downloads folder, a folder outside it holding a file, and an audit log.
func savingSession(t *testing.T, tier action.Tier) (s *Session, src *fileSource, dl, out, logPath string) {
	t.Helper()
	root := t.TempDir()
	dl, out, logPath = filepath.Join(root, "downloads"), filepath.Join(root, "outside"), filepath.Join(root, "audit.jsonl")
	for _, d := range []string{dl, out} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "x.png"), []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "x.png"), []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(dl, "link")); err != nil {
		t.Fatal(err)
	}
	log, err := audit.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	src = &fileSource{}
	return New(src, policy.New(tier), Options{Downloads: dl, Audit: log}), src, dl, out, logPath
}

// auditLines reads the audit log.
func auditLines(t *testing.T, path string) []audit.Entry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Entry
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		out = append(out, e)
	}
	return out
}

func unchanged(t *testing.T, path string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != "kept" {
		t.Errorf("%s: %q, %v; want it kept", path, b, err)
	}
}

// TestSaveThroughTheGate: at observe and act, a screenshot's path lands in
// the downloads folder (the reply and the audit line name the file);
// "..", an absolute path and a folder that links out of it are refused
// before the source is asked, in one line naming the rule and neither
// the path nor the link's end, and the session goes on.
func TestSaveThroughTheGate(t *testing.T) {
	for _, tier := range []action.Tier{action.Observe, action.Act} {
		s, src, dl, out, logPath := savingSession(t, tier)
		r, err := runStep(t, s, `screenshot "s.png"`)
		want := filepath.Join(dl, "s.png")
		if err != nil || r.Text != "screenshot saved to "+want+"\n" || r.File != want {
			t.Fatalf("at %s: %q, %q, %v", tier, r.Text, r.File, err)
		}
		if b, _ := os.ReadFile(want); !bytes.Equal(b, shotPNG) {
			t.Errorf("at %s: the file holds %q", tier, b)
		}
		src.calls = nil
		for _, p := range []string{"../x.png", filepath.Join(out, "x.png"), "link/x.png", "link/new.png"} {
			_, err := runStep(t, s, `screenshot "`+p+`"`)
			if err == nil || err.Error() != "screenshot needs the sensitive tier to write a file outside the downloads folder; this session allows "+tier.String()+" (--allow sensitive): not permitted" {
				t.Errorf("%s at %s: %v", p, tier, err)
			}
		}
		if len(src.calls) != 0 {
			t.Errorf("at %s: refused screenshots reached the source: %v", tier, src.calls)
		}
		unchanged(t, filepath.Join(out, "x.png"))
		unchanged(t, filepath.Join(filepath.Dir(dl), "x.png"))
		if _, err := os.Stat(filepath.Join(out, "new.png")); err == nil {
			t.Errorf("at %s: written through the link", tier)
		}
		// In a batch, the step that leads out is refused, by its number,
		// its path as asked.
		_, err = runStep(t, s, `screenshot "b.png"; screenshot "link/b.png"`)
		if err == nil || !strings.Contains(err.Error(), `step 2 (screenshot "link/b.png") failed: screenshot needs the sensitive tier`) || strings.Contains(err.Error(), out) {
			t.Errorf("batch at %s: %v", tier, err)
		}
		if _, err := os.Stat(filepath.Join(dl, "b.png")); err != nil {
			t.Errorf("batch at %s: the first step saved nothing: %v", tier, err)
		}
		if _, err := runStep(t, s, `screenshot "s.png"`); err != nil {
			t.Errorf("at %s, after the refusals: %v", tier, err)
		}
		lines := auditLines(t, logPath)
		if e := lines[0]; e.File != want || e.Decision != "allowed" {
			t.Errorf("at %s, the audit line: %+v", tier, e)
		}
		if e := lines[1]; e.File != "" || e.Decision != "refused" || e.Tier != "sensitive" || e.Action != `screenshot "../x.png"` {
			t.Errorf("at %s, the refusal's audit line: %+v", tier, e)
		}
		if e := lines[3]; e.Decision != "refused" || e.Tier != "sensitive" || e.Action != `screenshot "link/x.png"` {
			t.Errorf("at %s, the link's refusal's audit line: %+v", tier, e)
		}
		if e := lines[len(lines)-1]; e.File != filepath.Join(dl, "s (1).png") {
			t.Errorf("at %s, the last audit line: %+v", tier, e)
		}
	}
}

// TestSavePrint: print at act saves the source's PDF under the page's
// name, and refuses a path out of the folder; at sensitive the path
// elsewhere is written, never over a file or on the audit log.
func TestSavePrint(t *testing.T) {
	s, _, dl, out, _ := savingSession(t, action.Act)
	r, err := runStep(t, s, `print`)
	if want := filepath.Join(dl, "Login.pdf"); err != nil || r.Text != "saved the page as PDF: "+want+" (4 bytes)\n" {
		t.Errorf("print: %q, %v", r.Text, err)
	}
	for _, p := range []string{"../p.pdf", "link/p.pdf", filepath.Join(out, "p.pdf")} {
		if _, err := runStep(t, s, `print "`+p+`"`); err == nil || !strings.Contains(err.Error(), "print needs the sensitive tier to write a file outside the downloads folder") {
			t.Errorf("print %s at act: %v", p, err)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("print wrote outside: %v", entries)
	}

	s, _, _, out, logPath := savingSession(t, action.Sensitive)
	r, err = runStep(t, s, `screenshot "link/x.png"`)
	if want := filepath.Join(out, "x (1).png"); err != nil || r.File != want {
		t.Errorf("at sensitive through the link: %q, %v; want %s", r.File, err, want)
	}
	unchanged(t, filepath.Join(out, "x.png"))
	before, _ := os.ReadFile(logPath)
	for _, p := range []string{logPath, "../audit.jsonl"} {
		_, err := runStep(t, s, `screenshot "`+p+`"`)
		if err == nil || err.Error() != "screenshot: no action writes canopy's audit log, at any tier: not permitted" {
			t.Errorf("the audit log as %s at sensitive: %v", p, err)
		}
	}
	after, _ := os.ReadFile(logPath)
	if !bytes.HasPrefix(after, before) || bytes.Contains(after, shotPNG) {
		t.Errorf("the audit log was written over")
	}
}
