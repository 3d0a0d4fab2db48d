package browser

import (
	"strings"
	"testing"
)

// TestProblemLines: what an action caused but the page does not show —
// a save the server refuses, a handler that throws or logs an error, a
// burst of failing requests, a new page's missing resources — is in the
// reply, after the diff or instead of `no change`; a working action has
// none.
func TestProblemLines(t *testing.T) {
	e := newAct(t, "/failures.html")
	got := map[string]string{}
	for _, step := range []string{
		`click role:button name:Save`,
		`click role:button name:Broken`,
		`click role:button name:Complain`,
		`click role:button name:Flood`,
		`click role:button name:Offline`,
		`click role:button name:Fine`,
		`click role:link name:"Broken assets"`,
	} {
		got[step] = e.must(step).Text
	}
	if want := "request POST /api/save → 500\n"; got[`click role:button name:Save`] != want {
		t.Errorf("save: %q, want %q", got[`click role:button name:Save`], want)
	}
	if want := "console error: \"Uncaught TypeError: Cannot read properties of undefined (reading 'x')\"\n"; got[`click role:button name:Broken`] != want {
		t.Errorf("broken: %q, want %q", got[`click role:button name:Broken`], want)
	}
	// The page's text stays on one line, quoted.
	if want := "console error: \"disk full:\\nretry later 42\"\n"; got[`click role:button name:Complain`] != want {
		t.Errorf("complain: %q, want %q", got[`click role:button name:Complain`], want)
	}
	flood := got[`click role:button name:Flood`]
	if n := strings.Count(flood, "request GET /api/missing/"); n != 3 || !strings.HasSuffix(flood, "… 5 more failed requests\n") {
		t.Errorf("flood, 3 lines and a count: %q", flood)
	}
	if fine := got[`click role:button name:Fine`]; strings.Contains(fine, "request") || strings.Contains(fine, "console") || !strings.Contains(fine, "saved") {
		t.Errorf("a working action: %q", fine)
	}
	nav := got[`click role:link name:"Broken assets"`]
	if !strings.HasPrefix(nav, "navigated /failures.html → /failures-assets.html\n") || !strings.Contains(nav, "ASSETS-MARKER") ||
		!strings.Contains(nav, "\nrequest GET /api/missing/logo.png → 404\n") || !strings.Contains(nav, "\nrequest GET /api/missing/app.js → 404\n") {
		t.Errorf("navigation with missing resources:\n%s", nav)
	}
	var transcript strings.Builder
	for _, step := range []string{`click role:button name:Save`, `click role:button name:Broken`, `click role:button name:Complain`, `click role:button name:Offline`} {
		transcript.WriteString("> " + step + "\n" + got[step])
	}
	golden(t, "problems", transcript.String())
}
