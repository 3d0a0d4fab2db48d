package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// taintPage is a login page in memory: a field that holds a credential
// (marked, as a browser marks one), a plain field, and copies of the
// value the page made. It records the actions that reached it.
type taintPage struct {
	secret  string
	focused string // the ref of the focused field
	calls   []string
}

func (p *taintPage) Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error) {
	rev := []rune(p.secret)
	slices.Reverse(rev)
	field := &tree.Node{Role: "textbox", Name: "Token", Ref: "e1", Key: "k1", Value: "«credential tok»", Secret: &tree.Secret{Name: "tok", Value: p.secret}}
	other := &tree.Node{Role: "textbox", Name: "Other", Ref: "e2", Key: "k2"}
	for _, n := range []*tree.Node{field, other} {
		if n.Ref == p.focused {
			n.States |= tree.Focused
		}
	}
	root := &tree.Node{Role: tree.RoleDocument, Children: []*tree.Node{
		field, other,
		{Role: "link", Name: "Reversed " + string(rev), Ref: "e3", Key: "k3", URL: "http://a.test/?t=" + p.secret[2:], ID: p.secret},
		{Role: "menuitem", Name: "Copy", Ref: "e4", Key: "k4"},
	}}
	return &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "Login", URL: "http://a.test/"}, Root: root}, nil
}

func (p *taintPage) Watch(ctx context.Context) (Watcher, error) {
	return fakeWatch{make(chan settle.Event)}, nil
}

func (p *taintPage) Do(ctx context.Context, pm *policy.Permit, a action.Action, target, to *tree.Node) (Output, error) {
	if err := pm.Allows(a.Kind); err != nil {
		return Output{}, err
	}
	p.calls = append(p.calls, a.String())
	return Output{Unchanged: true}, nil
}

// TestCopyRefused: a copy or cut chord in a field that holds a credential
// (named, or focused), or after keys that may move the focus on a page
// with one, and a drag from it, are refused before they reach the page,
// in one line that names the rule; editing keys and copying elsewhere
// are not.
func TestCopyRefused(t *testing.T) {
	const secret = "Zq7-Secret!42xy"
	page := &taintPage{secret: secret}
	s := New(page, policy.New(action.Act), Options{})
	for _, step := range []string{
		`press e1 "ctrl+a ctrl+c"`, `press e1 ctrl+x`, `press e1 ctrl+Insert`, `press e1 shift+Delete`,
		`press e1 meta+c`, `press e1 "ctrl+shift+C"`, `press e2 "Tab ctrl+c"`, `drag e1 "e2"`, `click e4`,
	} {
		_, err := runStep(t, s, step)
		if !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "«credential tok»") || !strings.Contains(err.Error(), " is refused") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", step, err)
		}
	}
	page.focused = "e1"
	if _, err := runStep(t, s, `press ctrl+c`); err == nil || !strings.Contains(err.Error(), "copying from a field that holds «credential tok» is refused") {
		t.Errorf("ctrl+c in the focused credential field: %v", err)
	}
	if len(page.calls) > 0 {
		t.Errorf("refused actions reached the page: %q", page.calls)
	}
	for _, step := range []string{`press e1 "Home Delete"`, `press e2 "ctrl+a ctrl+c"`, `press e2 "ctrl+v"`, `type e2 "x"`} {
		if _, err := runStep(t, s, step); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}
}

// TestLearnSecrets: a session knows the credentials of its secrets file
// and environment from the start: a page's copies of one are redacted
// before it types it, and so is the id a selector would probe.
func TestLearnSecrets(t *testing.T) {
	const secret = "Zq7-Secret!42xy"
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, []byte(`{"tok": "`+secret+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CANOPY_SECRET_FROM_ENV", "Env-Only-Secret-77")
	pol, err := policy.Open(action.Act, policy.Secrets(path))
	if err != nil {
		t.Fatal(err)
	}
	page := &taintPage{secret: secret}
	s := New(page, pol, Options{})
	snap, err := s.Model(context.Background(), action.Action{Kind: action.Snapshot, Full: true})
	if err != nil {
		t.Fatal(err)
	}
	link := tree.FindRef(snap.Root, "e3")
	for _, v := range []string{link.Name, link.URL, link.ID} {
		if !strings.Contains(v, "«credential tok»") || strings.Contains(v, secret[8:]) {
			t.Errorf("not redacted: %q", v)
		}
	}
	r, _ := runStep(t, s, `find id:/^Zq7-Se/`)
	if strings.Contains(r.Text, "e3") {
		t.Errorf("a selector probed the id: %s", r.Text)
	}
	if got := s.Redacted("echo Env-Only-Secret-77"); got != "echo «credential from_env»" {
		t.Errorf("the environment's credential: %q", got)
	}
}
