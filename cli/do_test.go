package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDo(t *testing.T) {
	s := serve(t)
	code, out, errs := run(t, "do", s.URL("/dashboard.html"),
		`click role:listitem text:Borealis >> role:button name:Delete; click role:dialog >> role:button name:Delete`)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	want := []string{"opened dialog \"Confirm delete\" e8\n  \"Delete project Borealis?\"\n  button \"Delete\" e9 focused", `closed dialog "Confirm delete"`, `"Deleted Borealis"`}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	if errs != "" {
		t.Errorf("stderr should be empty, got %q", errs)
	}
}

func TestDoErrors(t *testing.T) {
	s := serve(t)
	// A parse error is reported before any browser starts, with the column.
	code, out, errs := run(t, "do", s.URL("/dashboard.html"), `click role:button name:"Delete`)
	if code != ExitInput || out != "" || !strings.Contains(errs, "column") {
		t.Errorf("bad step: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// A failing step stops the run: earlier diffs on stdout, the error on stderr.
	code, out, errs = run(t, "do", s.URL("/dashboard.html"),
		`click role:listitem text:Apollo >> role:button; click role:button name:Nope; click role:button name:Cancel`)
	if code != ExitInput || !strings.Contains(out, `opened dialog`) || strings.Contains(out, "closed dialog") {
		t.Errorf("failing step: exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errs, "step 2") || !strings.Contains(errs, "no element matches role:button name:Nope; closest:") {
		t.Errorf("failing step: stderr %q", errs)
	}
}

func TestDoJSON(t *testing.T) {
	s := serve(t)
	code, out, errs := run(t, "do", "--json", s.URL("/todo.html"), `type role:textbox "milk" submit`)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var line struct {
		Step   int    `json:"step"`
		Text   string `json:"text"`
		Settle struct {
			Waited int64 `json:"settle_ns"`
			Quiet  bool  `json:"quiet"`
		} `json:"settle"`
		Timing struct {
			Total int64 `json:"total_ns"`
		} `json:"timing"`
	}
	if err := json.Unmarshal([]byte(out), &line); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if line.Step != 1 || !strings.Contains(line.Text, `checkbox "milk"`) || !line.Settle.Quiet || line.Settle.Waited <= 0 || line.Timing.Total <= 0 {
		t.Errorf("json: %+v", line)
	}
}

// TestDoSchemes: a command's own URL and its steps pass the same gate: at
// act, file: and javascript: are refused before the browser loads them.
func TestDoSchemes(t *testing.T) {
	s := serve(t)
	for _, args := range [][]string{
		{"do", "file:///etc/passwd", "extract text"},
		{"snapshot", "file:///etc/passwd"},
		{"do", s.URL("/login.html"), `navigate "file:///etc/passwd"; extract text`},
		{"do", s.URL("/login.html"), `navigate "javascript:void(document.title='pwned')"`},
		{"do", s.URL("/login.html"), `tabs new "view-source:` + s.URL("/login.html") + `"`},
	} {
		code, out, errs := run(t, args...)
		if code != ExitInput || !strings.Contains(errs, "needs the sensitive tier; this session allows act") {
			t.Errorf("%q: exit %d, stderr %q; want a refusal", args, code, errs)
		}
		if strings.Contains(out+errs, "root:") {
			t.Errorf("%q: the output holds the file", args)
		}
	}
	code, out, errs := run(t, "snapshot", "--allow", "sensitive", "file:///etc/passwd")
	if code != ExitOK || !strings.Contains(out, "root:") {
		t.Errorf("snapshot --allow sensitive file:///etc/passwd: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestDoAudit: --audit appends a JSON line per step to a 0600 file; the
// page the command opens with is loaded as a navigate step, so it has its
// line too.
func TestDoAudit(t *testing.T) {
	s := serve(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	code, _, errs := run(t, "do", "--audit", path, s.URL("/todo.html"), `type role:textbox "milk" submit; check role:checkbox name:milk`)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("audit file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d audit lines, want 3:\n%s", len(lines), data)
	}
	var e struct {
		Surface, Kind, Decision, Outcome, URL string
	}
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil || e.Kind != "navigate" || e.Decision != "allowed" || !strings.HasSuffix(e.URL, "/todo.html") {
		t.Errorf("first line: %+v, %v:\n%s", e, err, lines[0])
	}
	if err := json.Unmarshal([]byte(lines[2]), &e); err != nil || e.Surface != "cli" || e.Kind != "check" || e.Decision != "allowed" || e.Outcome != "ok" || !strings.HasSuffix(e.URL, "/todo.html") {
		t.Errorf("last line: %+v, %v:\n%s", e, err, lines[2])
	}
}

// TestDoCredential: canopy do types a credential by name; its value is in
// no output, nor in the audit log.
func TestDoCredential(t *testing.T) {
	const secret = "Sup3r-S3cret-Value"
	t.Setenv("CANOPY_SECRET_SITEPW", secret)
	s := serve(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	code, out, errs := run(t, "do", "--audit", path, s.URL("/echo.html"), `type role:textbox name:Token credential:sitepw; extract text`)
	data, _ := os.ReadFile(path)
	if code != ExitOK || !strings.Contains(out, "«credential sitepw»") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, text := range []string{out, errs, string(data)} {
		if strings.Contains(strings.ToUpper(text), strings.ToUpper(secret[:8])) {
			t.Errorf("the credential shows:\n%s", text)
		}
	}
}

// TestDoSecretsFile: --secrets gives credentials by name; one bound to the
// page's origin is typed, one bound elsewhere is refused; a file others can
// read stops the command before a browser starts.
func TestDoSecretsFile(t *testing.T) {
	s := serve(t)
	origin := strings.TrimSuffix(s.URL("/"), "/")
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.json")
	body := `{"here": {"value": "typed-here-1", "origins": ["` + origin + `"]}, "there": {"value": "never-typed-2", "origins": ["https://elsewhere.example"]}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "do", "--secrets", path, s.URL("/echo.html"), `type role:textbox name:Token credential:here`)
	if code != ExitOK || !strings.Contains(out, "«credential here»") || strings.Contains(out+errs, "typed-here") {
		t.Errorf("a bound secret on its origin: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = run(t, "do", "--secrets", path, s.URL("/echo.html"), `type role:textbox name:Token credential:there`)
	if code != ExitInput || !strings.Contains(errs, `may be typed only into https://elsewhere.example`) || strings.Contains(out+errs, "never-typed") {
		t.Errorf("a bound secret elsewhere: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(t, "do", "--secrets", path, s.URL("/echo.html"), `type role:textbox name:Token credential:here`)
	if code == ExitOK || !strings.Contains(errs, "readable by others") || out != "" {
		t.Errorf("a loose secrets file: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
