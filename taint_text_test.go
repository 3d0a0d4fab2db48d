package canopy_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/chromium"
	"github.com/canopy-dev/canopy/internal/leaktest"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/shell"
)

// taintSecret is the credential the taint tests type: its first six
// characters are what a selector would probe.
const taintSecret = "Zq7-Secret!42xy"

// taintReads are the readings that show every property a page can copy
// a credential into: the tree and every extract.
const taintReads = `snapshot full; extract links; extract table; extract form; extract text; extract markdown`

// TestTaintProperties: the page copies a typed credential into a link's
// href, a button's id and description, and reversed, hex-encoded and cut
// at the front into a table. No reply, model or shell command (cat, find,
// grep, ls -l) shows it in any shape, and a selector probing the id's
// first characters finds nothing.
func TestTaintProperties(t *testing.T) {
	ctx := t.Context()
	file := taintFile(t, fmt.Sprintf(`{"tok": %q}`, taintSecret))
	sess := openTaint(t, canopy.Config{Rules: []policy.Option{policy.Secrets(file)}})
	var out strings.Builder
	out.WriteString(runTaint(t, sess, fmt.Sprintf(`navigate %q; type role:textbox name:Token credential:tok`, testSite.URL("/taint.html"))))
	reads := runTaint(t, sess, taintReads)
	out.WriteString(reads)
	found := runTaint(t, sess, `find id:/^Zq7-Se/`)
	out.WriteString(found)
	if !strings.HasPrefix(found, "no element matches") {
		t.Errorf("find id:/^Zq7-Se/ found:\n%s", found)
	}
	model, err := sess.Model(ctx, action.Action{Kind: action.Snapshot, Full: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(model)
	if err != nil {
		t.Fatal(err)
	}
	out.Write(data)

	sh := shell.New(sess.Session, shell.Options{})
	var shOut strings.Builder
	for _, src := range []string{
		`for l in $(find role:link name:Profile); do cat "$l"; done`,
		`for l in $(find role:button name:Described); do cat "$l"; done`,
		`grep -r -i zq7`,
		`ls -l`,
	} {
		if err := sh.Run(ctx, src, &shOut); err != nil {
			shOut.WriteString(err.Error())
		}
	}
	out.WriteString(shOut.String())
	var probe strings.Builder
	if err := sh.Run(ctx, `find 'id:/^Zq7-Se/' | grep -c Described`, &probe); err != nil || probe.String() != "0\n" {
		t.Errorf("the shell's find id:/^Zq7-Se/: %q, %v", probe.String(), err)
	}
	out.WriteString(probe.String())
	for _, want := range []string{"href: https://example.test/u/«credential tok»", "id: «credential tok»", "description: «credential tok»"} {
		if !strings.Contains(shOut.String(), want) {
			t.Errorf("cat does not show %q:\n%s", want, shOut.String())
		}
	}
	for _, row := range []string{"Reversed", "Hex", "Upper hex", "Suffix"} {
		if !strings.Contains(reads, row+" | «credential tok»") {
			t.Errorf("the table's %s copy is not masked:\n%s", row, reads)
		}
	}
	if found := leaktest.Copies(taintSecret, out.String()); len(found) > 0 {
		t.Errorf("the credential shows as %v:\n%s", found, out.String())
	}
}

// TestTaintClipboard: copying from a field that holds a credential — by
// ctrl+c, ctrl+x, ctrl+Insert, shift+Delete, after a Tab into it, or from
// the field the page re-rendered with the value — is refused in one
// line, and the clipboard keeps what it held. The re-rendered field stays
// masked, also once its first character is deleted. A page's own copies
// copied with the page are redacted when the clipboard is read.
func TestTaintClipboard(t *testing.T) {
	file := taintFile(t, fmt.Sprintf(`{"tok": %q}`, taintSecret))
	sess := openTaint(t, canopy.Config{Allow: action.Sensitive, Rules: []policy.Option{policy.Secrets(file)}})
	var out strings.Builder
	out.WriteString(runTaint(t, sess, fmt.Sprintf(`navigate %q; clipboard "sentinel-4c1"; type role:textbox name:Token credential:tok`, testSite.URL("/taint.html"))))
	refused := func(step, want string) {
		t.Helper()
		err := runTaintErr(t, sess, step, &out)
		if !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a refusal saying %q", step, err, want)
		}
	}
	const fromField = "copying from a field that holds «credential tok» is refused"
	for _, keys := range []string{"ctrl+a ctrl+c", "ctrl+x", "ctrl+Insert", "shift+Delete"} {
		refused(fmt.Sprintf(`press role:textbox name:Token %q`, keys), fromField)
	}
	refused(`press role:textbox name:Plain "shift+Tab ctrl+c"`, "copying after keys that may move the focus")

	// The page replaces the field: a new input, the same value, no mark.
	r := runTaint(t, sess, `click role:button name:Re-render; extract form`)
	out.WriteString(r)
	if !strings.Contains(r, `"«credential tok»"`) {
		t.Errorf("the re-rendered field is not masked:\n%s", r)
	}
	refused(`press role:textbox name:Token "ctrl+a ctrl+c"`, fromField)
	r = runTaint(t, sess, `clipboard`)
	out.WriteString(r)
	if !strings.Contains(r, "sentinel-4c1") {
		t.Errorf("the clipboard changed:\n%s", r)
	}
	// Its first character deleted, the value is a cut copy: still masked.
	r = runTaint(t, sess, `press role:textbox name:Token "Home Delete"; extract form`)
	out.WriteString(r)
	if !strings.Contains(r, `"«credential tok»"`) {
		t.Errorf("the field cut at the front is not masked:\n%s", r)
	}

	// The page's copies, copied with the whole page: read redacted.
	r = runTaint(t, sess, `click role:heading name:Taint; press "ctrl+a ctrl+c"; clipboard`)
	out.WriteString(r)
	if !strings.Contains(r, "«credential tok»") || strings.Contains(r, "sentinel-4c1") {
		t.Errorf("the page's copies on the clipboard:\n%s", r)
	}
	if found := leaktest.Copies(taintSecret, out.String()); len(found) > 0 {
		t.Errorf("the credential shows as %v:\n%s", found, out.String())
	}
}

// TestTaintSecondSession: a canopy attached to the browser later (--cdp),
// which never typed the credential, redacts it from its first reading —
// from the secrets file, or the environment — though the page re-rendered
// the field, dropping the mark the first canopy left on it.
func TestTaintSecondSession(t *testing.T) {
	ctx := t.Context()
	p, err := chromium.Start(ctx, chromium.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	const envSecret = "Env-Secret-9q!Ut"
	t.Setenv("CANOPY_SECRET_ENVTOK", envSecret)
	file := taintFile(t, fmt.Sprintf(`{"tok": %q}`, taintSecret))
	for _, c := range []struct {
		name, credential, secret string
		rules                    []policy.Option
	}{
		{"file", "tok", taintSecret, []policy.Option{policy.Secrets(file)}},
		{"env", "envtok", envSecret, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			first := openTaint(t, canopy.Config{Browser: browser.Options{CDP: p.URL}, Allow: action.Act, Rules: c.rules})
			runTaint(t, first, fmt.Sprintf(`navigate %q; type role:textbox name:Token credential:%s; click role:button name:Re-render`, testSite.URL("/taint.html"), c.credential))
			if err := first.Close(); err != nil {
				t.Fatal(err)
			}
			second := openTaint(t, canopy.Config{Browser: browser.Options{CDP: p.URL}, Rules: c.rules})
			out := runTaint(t, second, taintReads)
			var sh strings.Builder
			if err := shell.New(second.Session, shell.Options{}).Run(ctx, `for l in $(find role:button name:Described); do cat "$l"; done`, &sh); err != nil {
				t.Fatal(err)
			}
			out += sh.String()
			if !strings.Contains(out, "Reversed | «credential "+c.credential+"»") || !strings.Contains(out, "id: «credential "+c.credential+"»") {
				t.Errorf("the second canopy does not mask the page's copies:\n%s", out)
			}
			if found := leaktest.Copies(c.secret, out); len(found) > 0 {
				t.Errorf("the second canopy shows the credential as %v:\n%s", found, out)
			}
		})
	}
}

// TestTaintFrameOrigin: a credential bound to 127.0.0.1 is refused for a
// field inside a frame from 127.0.0.2 on a 127.0.0.1 page, and the frame's
// server never sees it; the frame's own credential, bound to 127.0.0.2,
// is typed there though the tab is 127.0.0.1's.
func TestTaintFrameOrigin(t *testing.T) {
	rec := startRecorder(t)
	const partner = "Qv9-Fm!3kXw7p"
	file := taintFile(t, fmt.Sprintf(`{"tok": {"value": %q, "origins": [%q]}, "partner": {"value": %q, "origins": [%q]}}`,
		taintSecret, testSite.URL(""), partner, rec.origin))
	sess := openTaint(t, canopy.Config{Rules: []policy.Option{policy.Secrets(file)}})
	var out strings.Builder
	page := testSite.URL("/taint.html?frame=" + url.QueryEscape(rec.origin+"/frame"))
	out.WriteString(runTaint(t, sess, fmt.Sprintf(`navigate %q; wait role:textbox name:"Partner token"`, page)))

	err := runTaintErr(t, sess, `type role:textbox name:"Partner token" credential:tok`, &out)
	if !errors.Is(err, policy.ErrUnbound) || !strings.Contains(err.Error(), "not "+rec.origin) {
		t.Errorf("typing the 127.0.0.1 credential into the 127.0.0.2 frame: %v", err)
	}
	out.WriteString(runTaint(t, sess, `type role:textbox name:Token credential:tok; type role:textbox name:"Partner token" credential:partner`))
	if !rec.wait(t, partner) {
		t.Fatalf("the frame's server never saw its own credential: the frame did not get the text (log %q)", rec.all())
	}
	if found := leaktest.Copies(taintSecret, rec.all()); len(found) > 0 {
		t.Errorf("the frame's server saw the 127.0.0.1 credential as %v: %q", found, rec.all())
	}
	if found := leaktest.Copies(taintSecret, out.String()); len(found) > 0 {
		t.Errorf("the credential shows as %v:\n%s", found, out.String())
	}
}

// taintFile writes a 0600 secrets file with body.
func taintFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// openTaint opens a session that the test closes.
func openTaint(t *testing.T, cfg canopy.Config) *canopy.Session {
	t.Helper()
	sess, err := canopy.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// runTaint runs steps, failing the test on an error, and returns the
// replies' text.
func runTaint(t *testing.T, sess *canopy.Session, steps string) string {
	t.Helper()
	var out strings.Builder
	if err := runTaintErr(t, sess, steps, &out); err != nil {
		t.Fatalf("%s: %v", steps, err)
	}
	return out.String()
}

// runTaintErr runs steps one by one, writing the replies' text and errors
// to out, and returns the first error.
func runTaintErr(t *testing.T, sess *canopy.Session, steps string, out io.Writer) error {
	t.Helper()
	parsed, err := action.ParseSteps(steps)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range parsed {
		r, err := sess.Run(t.Context(), a)
		io.WriteString(out, r.Text)
		if err != nil {
			io.WriteString(out, err.Error()+"\n")
			return err
		}
	}
	return nil
}

// recorder is a server on 127.0.0.2 that serves a frame with a "Partner
// token" field, whose every input the frame sends back to it, and logs
// every request it gets: what the second origin ever saw.
type recorder struct {
	origin string
	mu     sync.Mutex
	log    []string
	more   chan struct{} // a request came
}

// startRecorder serves a recorder until the test ends.
func startRecorder(t *testing.T) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{origin: "http://" + ln.Addr().String(), more: make(chan struct{}, 1)}
	srv := &http.Server{ReadHeaderTimeout: 30 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.log = append(rec.log, r.Method+" "+r.URL.String()+" "+string(body))
		rec.mu.Unlock()
		select {
		case rec.more <- struct{}{}:
		default:
		}
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path == "/frame" {
			io.WriteString(w, `<!doctype html><html lang="en"><title>Partner</title>
<label for="pt">Partner token</label> <input id="pt" autocomplete="off">
<script>document.getElementById('pt').addEventListener('input', e => { new Image().src = '/log?v=' + encodeURIComponent(e.target.value); });</script>`)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return rec
}

// all is every request the recorder logged, unescaped too.
func (r *recorder) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := strings.Join(r.log, "\n")
	if u, err := url.QueryUnescape(s); err == nil {
		s += "\n" + u
	}
	return s
}

// wait waits, within a minute, for a request that holds text.
func (r *recorder) wait(t *testing.T, text string) bool {
	t.Helper()
	limit := time.NewTimer(time.Minute)
	defer limit.Stop()
	for !strings.Contains(r.all(), text) {
		select {
		case <-r.more:
		case <-limit.C:
			return false
		case <-t.Context().Done():
			return false
		}
	}
	return true
}
