package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShOneShotFileAndStdin: the shell one-shot (-c), from a file and from
// standard input; the first error stops the run, names its line, and the
// exit code says input error.
func TestShOneShotFileAndStdin(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real Chromium")
	}
	s := serve(t)
	page := s.URL("/login.html")
	code, out, errs := run(t, "sh", "--open", page, "-c", "cd form:Login; ls | head -n 2")
	if code != ExitOK || out != "textbox:Email\ntextbox:Password\n" {
		t.Errorf("sh -c: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	file := filepath.Join(t.TempDir(), "login.sh")
	script := "# fill in the form\ncd form:Login\ntype textbox:Email \"ada@example.com\"\nsubmit .\nclick nothing/here\necho never\n"
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(t, "sh", "--open", page, file)
	if code != ExitInput || !strings.Contains(out, `~ textbox "Email"`) || strings.Contains(out, "never") ||
		!strings.Contains(errs, "line 5: click nothing/here: ") {
		t.Errorf("sh FILE: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	var o, e bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	code = Main(ctx, []string{"sh", "--open", page, "-"}, strings.NewReader("ls /\nls | wc -l\n"), &o, &e)
	if code != ExitOK || o.String() != "tab1/\n4\n" {
		t.Errorf("sh - (stdin): exit %d, stdout %q, stderr %q", code, o.String(), e.String())
	}

	code, _, errs = run(t, "sh", "-c", "ls", file)
	if code != ExitInput || !strings.Contains(errs, "give -c or a FILE, not both") {
		t.Errorf("-c and FILE: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "sh", "-c", `echo "open`)
	if code != ExitInput || !strings.Contains(errs, `line 1, column 6: unbalanced "`) {
		t.Errorf("unbalanced quote: exit %d, %q", code, errs)
	}
}
