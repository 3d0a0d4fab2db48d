package cli

import (
	"strings"
	"testing"
)

// TestDomainsFlag: --domains patterns reach the policy; one that does not
// parse stops the command, with one line naming it, before a browser
// starts; a step that navigates to a host the list refuses is refused.
func TestDomainsFlag(t *testing.T) {
	f := policyFlags{domains: []string{"127.0.0.1", "!*.ads.test"}}
	cfg, err := f.config()
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"example.com/path", "ex*ample.com", "example.com:99999"} {
		code, out, errs := run(t, "do", "--domains", "127.0.0.1,"+bad, "about:blank", "snapshot")
		if code == ExitOK || out != "" || !strings.Contains(errs, `--domains "`+bad+`"`) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("--domains %s: exit %d, stdout %q, stderr %q", bad, code, out, errs)
		}
	}
	s := serve(t)
	code, out, errs := run(t, "do", "--domains", "127.0.0.1", s.URL("/login.html"), "navigate "+s.CrossURL("/landing/cli"))
	if code != ExitInput || !strings.Contains(errs, "is not in --domains (127.0.0.1)") {
		t.Errorf("navigate to a refused host: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if n := s.Hits(s.CrossURL("/landing/cli")); n != 0 {
		t.Errorf("the refused host was loaded %d time(s)", n)
	}
}

// TestStuckFlag: --stuck sets the stages; a value that does not parse
// stops the command before a browser starts.
func TestStuckFlag(t *testing.T) {
	code, out, errs := run(t, "do", "--stuck", "2,x", "about:blank", "snapshot")
	if code == ExitOK || out != "" || !strings.Contains(errs, "--stuck takes off") {
		t.Errorf("--stuck 2,x: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	s := serve(t)
	code, out, errs = run(t, "do", "--stuck", "off,off,2", s.URL("/failures.html"), "click id:dead; click id:dead")
	if code == ExitOK || !strings.Contains(errs, "refused: click e") || !strings.Contains(errs, "changed nothing once;") {
		t.Errorf("--stuck off,off,2: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
