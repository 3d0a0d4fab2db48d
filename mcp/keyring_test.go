package mcp

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/internal/keyringtest"
	"github.com/canopy-dev/canopy/internal/leaktest"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// maskedToken is the Token field's line with the credential masked.
var maskedToken = regexp.MustCompile(`(?m)^\s*textbox "Token" e[0-9]+ .*value="«credential kr-token»"$`)

// TestKeyringCredential: a credential stored only in the desktop keyring
// (a real gnome-keyring on a private bus) is typed into a page that echoes
// it in every shape; the field shows it masked and no reply or audit line
// holds it in any shape (as is, URL-encoded, base64 …). One bound to
// another origin is refused; with the keyring locked, typing is refused in
// one line and the session goes on.
func TestKeyringCredential(t *testing.T) {
	k := keyringtest.Start(t)
	const (
		secret = "kr-S3cret/v+al=ue&x"
		bound  = "kr-Bound-s3cret"
	)
	k.Store(t, "canopy kr-token", secret, map[string]string{"canopy": "kr-token"})
	k.Store(t, "canopy kr-bank", bound, map[string]string{"canopy": "kr-bank", "origins": "https://bank.example"})
	t.Setenv("CANOPY_SECRET_KR_TOKEN", "") // the keyring alone has it

	var logbuf bytes.Buffer
	cs := connect(t, newServer(t, Options{Session: canopy.Config{
		Rules:   []policy.Option{policy.Keyring(k.Address())},
		Session: session.Options{Audit: audit.New(&logbuf)},
	}}))
	var all strings.Builder
	do := func(tool string, args map[string]any) (string, bool) {
		t.Helper()
		text, isErr := call(t, cs, tool, args)
		all.WriteString(text)
		return text, isErr
	}
	do("navigate", map[string]any{"url": testSite.URL("/echo.html")})
	if r, isErr := do("type", map[string]any{"target": "role:textbox name:Token", "credential": "kr-token"}); isErr || !strings.Contains(r, "«credential kr-token»") {
		t.Errorf("type from the keyring (error %v): the reply does not show the mask:\n%s", isErr, r)
	}
	if snap, _ := do("snapshot", map[string]any{"full": true}); !maskedToken.MatchString(snap) {
		t.Errorf("the field is not masked:\n%s", snap)
	}
	do("extract", map[string]any{"format": "text"})
	do("extract", map[string]any{"format": "form"})
	do("click", map[string]any{"target": "role:button name:Send"}) // the value goes into the URL
	do("snapshot", map[string]any{"full": true})
	do("tabs", map[string]any{"action": "list"})

	if r, isErr := do("type", map[string]any{"target": "role:textbox name:Token", "credential": "kr-bank"}); !isErr || !strings.Contains(r, `credential "kr-bank" may be typed only into https://bank.example`) {
		t.Errorf("a keyring item bound to another origin (error %v):\n%s", isErr, r)
	}

	k.Lock(t)
	r, isErr := do("type", map[string]any{"target": "role:textbox name:Token", "credential": "kr-token"})
	if !isErr || !strings.Contains(r, `credential "kr-token" is in the keyring, but the keyring is locked: unlock it`) || strings.Count(strings.TrimSpace(r), "\n") > 0 {
		t.Errorf("a locked keyring (error %v):\n%s", isErr, r)
	}
	if snap, isErr := do("snapshot", nil); isErr || !strings.Contains(snap, `textbox "Token"`) {
		t.Errorf("the session is not usable after a locked keyring (error %v):\n%s", isErr, snap)
	}

	for _, v := range []string{secret, bound} {
		if found := leaktest.Shapes(v, all.String()); len(found) > 0 {
			t.Errorf("the replies hold a keyring secret as %v:\n%s", found, all.String())
		}
		if found := leaktest.Shapes(v, logbuf.String()); len(found) > 0 {
			t.Errorf("the audit log holds a keyring secret as %v", found)
		}
	}
}
