package session

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

// TestRedactor: every shape of a credential becomes «credential NAME»,
// in text and on the model before formatting (a name cut at its length
// limit shows no prefix), and a masked field stays masked whatever the
// page made of its value.
func TestRedactor(t *testing.T) {
	secret := `Lo"ng\secret <b>&amp; with spaces ` + strings.Repeat("x7Q", 40)
	var r redactor
	r.add(secret, "pw")
	const mask = "«credential pw»"
	for name, text := range map[string]string{
		"plain":  "before " + secret + " after",
		"upper":  strings.ToUpper(secret),
		"lower":  strings.ToLower(secret),
		"spaced": strings.Join(strings.Split(secret, ""), " "),
		"cut":    "x=" + secret[:7] + "…",
		"query":  "/echo?token=" + url.QueryEscape(secret),
		"path":   "/echo/" + url.PathEscape(secret),
		"base64": base64.StdEncoding.EncodeToString([]byte(secret)),
		"json":   `{"v":"` + strings.NewReplacer(`"`, `\"`, `\`, `\\`, "<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(secret) + `"}`,
		"quoted": `textbox "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(secret) + `"`,
	} {
		got := r.text(text)
		if !strings.Contains(got, mask) || strings.Contains(got, secret[:6]) || strings.Contains(strings.ToUpper(got), strings.ToUpper(secret[:6])) {
			t.Errorf("%s: %q", name, got)
		}
	}
	if got := r.text("an ordinary line"); got != "an ordinary line" {
		t.Errorf("an ordinary line became %q", got)
	}

	// On the model: the formatter's cut at a name's length sees the mask.
	snap := &tree.Snapshot{Header: tree.Header{Kind: "tab", Title: "t", URL: "http://h/?q=" + url.QueryEscape(secret)}, Root: &tree.Node{
		Role: tree.RoleDocument, Children: []*tree.Node{
			{Role: tree.RoleText, Name: "echo " + secret},
			{Role: "textbox", Name: "Token", Ref: "e2", Value: strings.ToUpper(secret[:5]) + "?"},
		},
	}}
	r.mask("e2", "pw")
	r.tree(snap)
	text := tree.Format(snap, tree.Options{Full: true})
	if strings.Contains(text, secret[:6]) || strings.Contains(text, url.QueryEscape(secret)[:10]) || !strings.Contains(text, `textbox "Token" e2 value="«credential pw»"`) {
		t.Errorf("formatted after redaction:\n%s", text)
	}
}
