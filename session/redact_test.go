package session

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
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

// TestRedactorPageCopies: the copies a page makes that canopy recognises
// — cut at the front, reversed (whole or cut), hex-encoded in either
// case (whole or cut), spaced with invisible characters — are redacted,
// for a short secret and a long one (whose pattern stays compilable).
func TestRedactorPageCopies(t *testing.T) {
	long := (`Lo"ng\secret <b>&amp; with spaces` + strings.Repeat("x7Q", 40))[:150]
	for _, secret := range []string{"Zq7-Secret!42xy", long, strings.Repeat("é9", 300)} {
		var r redactor
		r.add(secret, "pw")
		runes := []rune(secret)
		rev := []rune(secret)
		slices.Reverse(rev)
		hx := hex.EncodeToString([]byte(secret))
		for name, text := range map[string]string{
			"suffix":      "x=" + string(runes[1:]) + ".",
			"suffix6":     "(" + string(runes[len(runes)-6:]) + ")",
			"reversed":    string(rev),
			"reversedCut": string(rev[:8]),
			"hex":         "0x" + hx,
			"HEX":         strings.ToUpper(hx),
			"hexCut":      hx[len(hx)-14:],
			"zeroWidth":   strings.Join(strings.Split(string(runes[:9]), ""), "\u200b"),
			"nbsp":        strings.Join(strings.Split(string(runes[len(runes)-10:]), ""), "\u00a0"),
		} {
			got := r.text(text)
			if !strings.Contains(got, "«credential pw»") {
				t.Errorf("%.10s… %s: %q", secret, name, got)
			}
			for _, piece := range []string{string(runes[:6]), string(runes[len(runes)-6:]), string(rev[:6]), hx[:12], hx[len(hx)-12:]} {
				if strings.Contains(strings.ToLower(got), strings.ToLower(piece)) {
					t.Errorf("%.10s… %s: %q holds %q", secret, name, got, piece)
				}
			}
		}
		if got := r.text("an ordinary line, with 0123456789abcdef in it"); got != "an ordinary line, with 0123456789abcdef in it" {
			t.Errorf("an ordinary line became %q", got)
		}
	}
}

// TestRedactorEveryField: every string a node or header holds, however
// the page filled it, is redacted on the tree; the ones left alone are
// named here, with why. A field added to tree.Node without being
// redacted fails this test.
func TestRedactorEveryField(t *testing.T) {
	const secret = "Zq7-Secret!42xy"
	// The source's own words and identifiers, and canopy's refs: never
	// the page's.
	skip := map[string]bool{"Role": true, "Key": true, "UnreadKeys": true, "Kind": true, "Ref": true}
	fill := func(v reflect.Value) {
		for i := range v.NumField() {
			f, ft := v.Field(i), v.Type().Field(i)
			if !ft.IsExported() || skip[ft.Name] {
				continue
			}
			switch {
			case f.Kind() == reflect.String:
				f.SetString("copy " + secret)
			case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
				f.Set(reflect.ValueOf([]string{"copy " + secret}))
			}
		}
	}
	n := &tree.Node{Role: "link", Ref: "e1", Page: &tree.Header{Kind: "tab", Page: &tree.PageMeta{}}}
	fill(reflect.ValueOf(n).Elem())
	fill(reflect.ValueOf(n.Page).Elem())
	fill(reflect.ValueOf(n.Page.Page).Elem())
	snap := &tree.Snapshot{Header: tree.Header{Kind: "tab", Page: &tree.PageMeta{}}, Root: &tree.Node{Role: tree.RoleDocument, Children: []*tree.Node{n}}}
	fill(reflect.ValueOf(&snap.Header).Elem())
	fill(reflect.ValueOf(snap.Header.Page).Elem())
	var r redactor
	r.add(secret, "pw")
	r.tree(snap)
	data, err := json.Marshal(struct {
		Node   tree.Node
		Page   tree.Header
		Header tree.Header
	}{*n, *n.Page, snap.Header})
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprintf("%s %#v %#v %#v", data, *n, *n.Page, snap.Header)
	if strings.Contains(all, secret[:6]) {
		t.Errorf("a field keeps the secret: %s", all)
	}
	if !strings.Contains(n.Description, "«credential pw»") || !strings.Contains(n.ID, "«credential pw»") || !strings.Contains(n.URL, "«credential pw»") {
		t.Errorf("not masked: %+v", n)
	}
}

// TestDocumentURL: a credential is judged against the document of the
// field that receives it: a frame's, the page's, its parent's for a frame
// of no URL of its own, the focused field's when typing with no target.
func TestDocumentURL(t *testing.T) {
	main := &tree.Node{Role: "textbox", Name: "Main"}
	framed := &tree.Node{Role: "textbox", Name: "Framed", States: tree.Focused}
	blank := &tree.Node{Role: "textbox", Name: "Blank"}
	snap := &tree.Snapshot{Header: tree.Header{Kind: "tab", URL: "http://a.test/page"}, Root: &tree.Node{
		Role: tree.RoleDocument, Frame: "http://a.test/page", Children: []*tree.Node{
			main,
			{Role: tree.RoleFrame, Frame: "http://b.test/frame", Children: []*tree.Node{
				{Role: tree.RoleDocument, Children: []*tree.Node{framed,
					{Role: tree.RoleFrame, Frame: "about:blank", Children: []*tree.Node{blank}}}},
			}},
		},
	}}
	for _, c := range []struct {
		n    *tree.Node
		want string
	}{
		{main, "http://a.test/page"},
		{framed, "http://b.test/frame"},
		{blank, "http://b.test/frame"},
		{receiver(snap, nil), "http://b.test/frame"},
		{&tree.Node{}, "http://a.test/page"},
	} {
		if got := documentURL(snap, c.n); got != c.want {
			t.Errorf("%s: %q, want %q", tree.Line(c.n), got, c.want)
		}
	}
}
