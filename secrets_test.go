package canopy_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/internal/leaktest"
	"github.com/canopy-dev/canopy/internal/mcptest"
	"github.com/canopy-dev/canopy/mcp"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// TestCredentialEveryPath types a credential — from a 0600 secrets file —
// through every path (the library, an MCP batch, canopy do) into a page
// that echoes it, upper-cases, spaces out and cuts it and sends it in a
// GET form's URL, then reads the page every way a path can. No reply,
// error, stderr, audit line or tab list holds it in any shape.
func TestCredentialEveryPath(t *testing.T) {
	ctx, s := context.Background(), testSite
	long := (`Lo"ng\secret <b>&amp; with spaces` + strings.Repeat("x7Q", 40))[:150]
	for name, secret := range map[string]string{"short": "s3cr3t-Pw!", "long": long} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			secrets := filepath.Join(dir, "secrets.json")
			body := fmt.Sprintf(`{"tok": {"value": %q, "origins": [%q]}}`, secret, strings.TrimSuffix(s.URL("/"), "/"))
			if err := os.WriteFile(secrets, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			echo := s.URL("/echo.html")
			// Every channel a step reads through: replies, extracts, a
			// screenshot saved to a file, print (refused while the value is
			// on the page), a copy from the field (refused), the tab list.
			const steps = `type role:textbox name:Token credential:tok; snapshot full; extract text; extract form; screenshot "shot.png"; print; press role:textbox name:Token "ctrl+a ctrl+c"; tabs list; click role:button name:Send; snapshot full; tabs list; extract links`
			var out strings.Builder

			// The library.
			var libLog bytes.Buffer
			sess, err := canopy.Open(ctx, canopy.Config{Rules: secretsRule(t, secrets), Session: session.Options{Audit: audit.New(&libLog)}})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			r, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: echo})
			if err != nil {
				t.Fatal(err)
			}
			out.WriteString(r.Text)
			parsed, err := action.ParseSteps(steps)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range parsed {
				r, err := sess.Run(ctx, a)
				out.WriteString(r.Text + fmt.Sprint(err))
			}
			if !strings.Contains(out.String(), "«credential tok»") {
				t.Errorf("the library's replies do not show the mask")
			}
			for _, refused := range []string{"print is refused while a credential is on the page", "copying from a field that holds «credential tok» is refused"} {
				if !strings.Contains(out.String(), refused) {
					t.Errorf("the library's replies do not say %q:\n%s", refused, out.String())
				}
			}
			out.WriteString(libLog.String())

			// An MCP batch.
			var mcpLog bytes.Buffer
			srv, err := mcp.New(mcp.Options{Session: canopy.Config{Rules: secretsRule(t, secrets), Session: session.Options{Audit: audit.New(&mcpLog)}}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			cs := mcptest.Connect(t, srv.SDK())
			text, _ := mcptest.Call(t, cs, "batch", map[string]any{"steps": []any{
				map[string]any{"tool": "navigate", "args": map[string]any{"url": echo}},
				map[string]any{"tool": "type", "args": map[string]any{"target": "role:textbox name:Token", "credential": "tok"}},
				map[string]any{"tool": "extract", "args": map[string]any{"format": "text"}},
				map[string]any{"tool": "click", "args": map[string]any{"target": "role:button name:Send"}},
				map[string]any{"tool": "tabs", "args": map[string]any{"action": "list"}},
				map[string]any{"tool": "extract", "args": map[string]any{"format": "links"}},
			}})
			out.WriteString(text)
			text, _ = mcptest.Call(t, cs, "snapshot", map[string]any{"full": true})
			out.WriteString(text + mcpLog.String())
			// The MCP shell: every property of every node, and the page's text.
			text, _ = mcptest.Call(t, cs, "navigate", map[string]any{"url": echo})
			out.WriteString(text)
			text, _ = mcptest.Call(t, cs, "type", map[string]any{"target": "role:textbox name:Token", "credential": "tok"})
			out.WriteString(text)
			text, _ = mcptest.Call(t, cs, "shell", map[string]any{"command": `for p in $(find role:textbox); do cat "$p"; done; grep -r . ; text`})
			if !strings.Contains(text, "«credential tok»") {
				t.Errorf("the shell does not show the mask:\n%s", text)
			}
			out.WriteString(text)

			// canopy do.
			auditFile := filepath.Join(dir, "audit.jsonl")
			// canopy do stops at the first refusal: its steps leave out the
			// refused ones.
			doSteps := strings.NewReplacer(`print; `, ``, `press role:textbox name:Token "ctrl+a ctrl+c"; `, ``).Replace(steps)
			code, stdout, stderr := runCLI(t, "do", "--secrets", secrets, "--audit", auditFile, echo, doSteps)
			if code != 0 || !strings.Contains(stdout, "«credential tok»") {
				t.Errorf("canopy do: exit %d, stderr %q", code, stderr)
			}
			data, _ := os.ReadFile(auditFile)
			out.WriteString(stdout + stderr + string(data))

			if found := leaktest.Shapes(secret, out.String()); len(found) > 0 {
				t.Errorf("the credential shows as %v:\n%s", found, out.String())
			}
		})
	}
}

// secretsRule is the --secrets rule of the file at path.
func secretsRule(t *testing.T, path string) []policy.Option {
	t.Helper()
	return []policy.Option{policy.Secrets(path)}
}
