package canopy_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/leaktest"
	"github.com/canopy-dev/canopy/internal/pdftext"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// Two credentials of the same length: a page that shows either lays out
// the same, so pictures of it with every credential painted over are the
// same pixel for pixel.
const (
	secretA = "s3cr3t-Pw!"
	secretB = "Zq9@xK2#mB"
)

// credentialSession opens a session whose secrets file holds tok = secret.
func credentialSession(t *testing.T, secret string) *canopy.Session {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, fmt.Appendf(nil, `{"tok": {"value": %q}}`, secret), 0o600); err != nil {
		t.Fatal(err)
	}
	sess, err := canopy.Open(context.Background(), canopy.Config{Rules: secretsRule(t, path)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// run runs steps in sess, failing the test on an error.
func run(t *testing.T, sess *canopy.Session, steps string) []session.Reply {
	t.Helper()
	parsed, err := action.ParseSteps(steps)
	if err != nil {
		t.Fatal(err)
	}
	var out []session.Reply
	for _, a := range parsed {
		r, err := sess.Run(context.Background(), a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		out = append(out, r)
	}
	return out
}

// TestCredentialScreenshot types a credential into a plain text field of
// a page that echoes it (as is, upper-cased, spaced out, cut, and into a
// second field), then takes a screenshot of the page, one with marks and
// one of the form alone. Taken again in a session that typed another
// credential of the same length, each picture is the same pixel for pixel:
// nothing of either credential shows. Each differs from the page before
// typing (the masks are there), and no reply names the credential.
func TestCredentialScreenshot(t *testing.T) {
	shots := `screenshot; screenshot marks; screenshot role:form`
	var pics [2][][]byte
	var before [][]byte
	for i, secret := range []string{secretA, secretB} {
		sess := credentialSession(t, secret)
		run(t, sess, `navigate "`+testSite.URL("/echo.html")+`"`)
		if i == 0 {
			for _, r := range run(t, sess, shots) {
				before = append(before, r.Image)
			}
		}
		var text strings.Builder
		for _, r := range run(t, sess, `type role:textbox name:Token credential:tok; `+shots) {
			text.WriteString(r.Text)
			if r.Image != nil {
				pics[i] = append(pics[i], r.Image)
			}
		}
		if !strings.Contains(text.String(), "«credential tok»") {
			t.Fatalf("the echo did not show the credential:\n%s", text.String())
		}
		if found := leaktest.Shapes(secret, text.String()); len(found) > 0 {
			t.Errorf("a reply shows the credential as %v", found)
		}
	}
	for k, name := range []string{"screenshot", "screenshot marks", "screenshot role:form"} {
		a, b := leaktest.Pixels(t, pics[0][k]), leaktest.Pixels(t, pics[1][k])
		if a.Bounds() != b.Bounds() || !bytes.Equal(a.Pix, b.Pix) {
			t.Errorf("%s: the pictures of two credentials differ (%v, %v): a credential shows", name, a.Bounds(), b.Bounds())
			save(t, name, pics[0][k], pics[1][k])
		}
		if bytes.Equal(leaktest.Pixels(t, before[k]).Pix, a.Pix) {
			t.Errorf("%s: the picture is the page before typing: nothing was typed, or nothing painted over", name)
		}
	}
}

// save keeps two pictures that should be the same, for a look.
func save(t *testing.T, name string, a, b []byte) {
	dir := t.TempDir()
	if d := os.Getenv("CANOPY_TEST_SHOTS"); d != "" {
		dir = d
	}
	for i, p := range [][]byte{a, b} {
		f := filepath.Join(dir, fmt.Sprintf("%s-%d.png", strings.ReplaceAll(name, " ", "-"), i))
		if err := os.WriteFile(f, p, 0o644); err == nil {
			t.Logf("saved %s", f)
		}
	}
}

// TestCredentialPrint: print is refused while a credential is on the page
// (in a field, echoed), with one line that names it by name and writes no
// file; on a fresh copy of the page it prints, and the PDF's text (read
// through its fonts' maps: it holds the page's words) holds no shape of
// the credential. A page that prints what it shows nowhere else (a print
// style sheet) is refused once the PDF is made.
func TestCredentialPrint(t *testing.T) {
	sess := credentialSession(t, secretA)
	dl, _ := sess.Downloads()
	echo := testSite.URL("/echo.html")
	run(t, sess, `navigate "`+echo+`"; type role:textbox name:Token credential:tok`)
	refused := func(want string) {
		t.Helper()
		_, err := sess.Run(context.Background(), action.Action{Kind: action.Print})
		if err == nil || !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("print: %v, want a one-line refusal saying %q", err, want)
		}
		if found := leaktest.Shapes(secretA, err.Error()); len(found) > 0 {
			t.Errorf("the refusal shows the credential as %v", found)
		}
		if files, _ := filepath.Glob(filepath.Join(dl, "*.pdf")); len(files) > 0 {
			t.Errorf("print wrote %v", files)
		}
	}
	refused("print is refused while a credential is on the page («credential tok»)")

	r := run(t, sess, `navigate "`+echo+`"; print`)[1]
	pdf, err := os.ReadFile(r.File)
	if err != nil {
		t.Fatal(err)
	}
	text, err := pdftext.Text(pdf)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Short copy") || !strings.Contains(text, "Upper:") {
		t.Fatalf("the PDF's text does not hold the page's words:\n%s", text)
	}
	if found := leaktest.Shapes(secretA, text); len(found) > 0 {
		t.Errorf("the PDF shows the credential as %v", found)
	}
	if err := os.Remove(r.File); err != nil {
		t.Fatal(err)
	}

	run(t, sess, `navigate "`+testSite.URL("/print-secret.html")+`"; type role:textbox name:PIN credential:tok`)
	refused("the PDF shows a credential («credential tok»)")
}
