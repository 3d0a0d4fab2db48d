package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/internal/chromium"
	"github.com/canopy-dev/canopy/internal/site"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	code = Main(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func serve(t *testing.T) *site.Site {
	t.Helper()
	s, err := site.Serve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"snapshot"}, "give a URL"},
		{[]string{"snapshot", "--budget", "-5", "http://127.0.0.1:1/"}, "--budget must be positive"},
		{[]string{"snapshot", "--nope", "x"}, "unknown flag"},
		{[]string{"snapshot", "a", "b"}, "accepts at most 1 arg"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		code, out, errs := run(t, tc.args...)
		if code != ExitInput || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

func TestEnvironmentErrors(t *testing.T) {
	code, _, errs := run(t, "snapshot", "--chromium", "/nonexistent/chromium", "http://127.0.0.1:1/")
	if code != ExitEnv || !strings.Contains(errs, "not found") {
		t.Errorf("missing browser: exit %d, %q", code, errs)
	}
	// A "browser" that exits at once, as a crash at launch does.
	code, _, errs = run(t, "snapshot", "--chromium", "false", "http://127.0.0.1:1/")
	if code != ExitEnv || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("crashing browser: exit %d, stderr %q; want exit 2 and one line", code, errs)
	}
	code, _, errs = run(t, "snapshot", "--cdp", "http://127.0.0.1:1")
	if code != ExitEnv || !strings.Contains(errs, "attach") {
		t.Errorf("dead CDP endpoint: exit %d, %q", code, errs)
	}
}

func TestUnreachableURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	code, out, errs := run(t, "snapshot", closed)
	if code != ExitInput || out != "" || !strings.Contains(errs, "ERR_CONNECTION_REFUSED") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestSnapshotCommand(t *testing.T) {
	s := serve(t)
	code, out, errs := run(t, "snapshot", s.URL("/login.html"))
	if code != 0 || !strings.HasPrefix(out, `tab 1 "Acme login" 127.0.0.1:`) || !strings.Contains(out, `textbox "Email" e2 required`) {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	code, out, _ = run(t, "snapshot", s.URL("/login.html"), "--scope", "e1")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 6 || !strings.HasPrefix(lines[1], `form "Login" e1`) || !strings.Contains(lines[0], "(scope e1)") {
		t.Errorf("--scope e1: exit %d:\n%s", code, out)
	}
	code, _, errs = run(t, "snapshot", s.URL("/login.html"), "--scope", "e99")
	if code != ExitInput || !strings.Contains(errs, "no element has ref e99") {
		t.Errorf("--scope e99: exit %d, %q", code, errs)
	}
	code, out, _ = run(t, "snapshot", "--json", s.URL("/cross.html"))
	var got struct {
		Header struct{ Title string }
		Root   struct{ Children []json.RawMessage }
		Stats  struct {
			Targets int `json:"targets"`
			Frames  int `json:"frames"`
		}
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, out)
	}
	if got.Header.Title != "Cross-site frame" || got.Stats.Targets != 2 || got.Stats.Frames != 3 || len(got.Root.Children) == 0 {
		t.Errorf("--json: %+v", got)
	}
}

// TestAttachCDP starts a browser the way a user would, with a debugging
// port, and reads its current tab with --cdp.
func TestAttachCDP(t *testing.T) {
	s := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := chromium.Start(ctx, chromium.Options{URL: s.URL("/frames.html")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	code, out, errs := run(t, "snapshot", "--cdp", p.URL)
	if code != 0 || !strings.Contains(out, "MARKER-NESTED-FRAME") {
		t.Fatalf("--cdp: exit %d, stderr %q:\n%s", code, errs, out)
	}
	// The tab canopy attached to is still open: canopy did not close it.
	code, out, _ = run(t, "snapshot", "--cdp", p.URL)
	if code != 0 || !strings.Contains(out, "MARKER-MAIN") {
		t.Errorf("second attach: exit %d:\n%s", code, out)
	}
}
