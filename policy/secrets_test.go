package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
)

func writeSecrets(t *testing.T, body string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSecretsFile: a 0600 JSON file of plain and origin-bound secrets; a
// bound one is typed only into its origins; the environment stands in
// for names the file lacks; a loose, broken or odd file stops Open
// without quoting the file.
func TestSecretsFile(t *testing.T) {
	const body = `{"plain": "p-value", "Bank": {"value": "b-value", "origins": ["https://bank.example/login", "http://127.0.0.1:8080"]}}`
	p, err := Open(action.Act, Secrets(writeSecrets(t, body, 0o600)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, page, want string
		unbound          bool
	}{
		{"plain", "https://anywhere.example/", "p-value", false},
		{"plain", "", "p-value", false},
		{"bank", "https://bank.example/account?x=1", "b-value", false},
		{"BANK", "http://127.0.0.1:8080/pay", "b-value", false},
		{"bank", "https://evil.example/bank.example", "", true},
		{"bank", "http://bank.example/", "", true},
		{"bank", "http://127.0.0.1:8081/", "", true},
		{"bank", "", "", true},
	} {
		v, err := p.Secret(context.Background(), c.name, c.page)
		if v != c.want || errors.Is(err, ErrUnbound) != c.unbound {
			t.Errorf("Secret(%q, %q) = %q, %v", c.name, c.page, v, err)
		}
		if err != nil && strings.Contains(err.Error(), "b-value") {
			t.Errorf("the error holds the value: %v", err)
		}
	}
	t.Setenv("CANOPY_SECRET_FROM_ENV", "e-value")
	if v, err := p.Secret(context.Background(), "from-env", "https://x.example"); v != "e-value" || err != nil {
		t.Errorf("a name the file lacks, from the environment: %q, %v", v, err)
	}
	if _, err := p.Secret(context.Background(), "missing", ""); err == nil || !strings.Contains(err.Error(), "secrets.json") || !strings.Contains(err.Error(), "CANOPY_SECRET_MISSING") {
		t.Errorf("a missing secret: %v", err)
	}
	// Bound in the file, set in the environment too: the binding holds.
	t.Setenv("CANOPY_SECRET_BANK", "env-bank")
	if v, err := p.Secret(context.Background(), "bank", "https://evil.example"); v != "" || !errors.Is(err, ErrUnbound) {
		t.Errorf("the environment stood in for a bound secret: %q, %v", v, err)
	}

	for _, c := range []struct {
		body string
		mode os.FileMode
		want string
	}{
		{body, 0o644, "readable by others (mode 0644): chmod 600"},
		{body, 0o640, "readable by others"},
		{`{"a": "secret-text", broken`, 0o600, "not a JSON object"},
		{`{"a b": "x"}`, 0o600, "not a credential name"},
		{`{"a": {"value": "x", "origins": ["not a url"]}}`, 0o600, "not a URL"},
		{`{"a": 42}`, 0o600, "neither a string"},
	} {
		_, err := Open(action.Act, Secrets(writeSecrets(t, c.body, c.mode)))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "secret-text") {
			t.Errorf("%s (mode %04o): %v, want %q", c.body, c.mode, err, c.want)
		}
	}
	if _, err := Open(action.Act, Secrets(filepath.Join(t.TempDir(), "none.json"))); err == nil {
		t.Error("a missing secrets file opened")
	}
}

// TestEachSecret: the credentials a session learns at its start are the
// secrets file's entries and the $CANOPY_SECRET_* variables, by name.
func TestEachSecret(t *testing.T) {
	path := writeSecrets(t, `{"plain": "p-value", "Bank": {"value": "b-value", "origins": ["https://bank.example"]}}`, 0o600)
	t.Setenv("CANOPY_SECRET_FROM_ENV", "e-value")
	t.Setenv("CANOPY_SECRET_EMPTY", "")
	t.Setenv("NOT_CANOPY_SECRET_X", "x-value")
	p, err := Open(action.Act, Secrets(path))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	p.EachSecret(func(name, value string) { got[name] = value })
	for name, want := range map[string]string{"plain": "p-value", "bank": "b-value", "from_env": "e-value"} {
		if got[name] != want {
			t.Errorf("%s: %q, want %q (all: %v)", name, got[name], want, got)
		}
	}
	for _, name := range []string{"empty", "x"} {
		if _, ok := got[name]; ok {
			t.Errorf("learnt %s", name)
		}
	}
}
