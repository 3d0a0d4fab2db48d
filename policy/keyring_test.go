package policy

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/keyringtest"
)

// quick is how long a keyring answer may take in these tests: well under
// the 5-second cap, so a lookup that waited on something shows.
const quick = 2 * time.Second

// secretOf resolves a credential and fails the test when the error holds
// any of the values.
func secretOf(t *testing.T, p *Policy, name, page string, values ...string) (string, time.Duration, error) {
	t.Helper()
	start := time.Now()
	v, err := p.Secret(context.Background(), name, page)
	took := time.Since(start)
	if err != nil {
		for _, val := range values {
			if strings.Contains(err.Error(), val) {
				t.Errorf("Secret(%q): the error holds a value: %v", name, err)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Secret(%q): the error is not one line: %q", name, err)
		}
	}
	return v, took, err
}

// TestKeyring: credentials stored in a real gnome-keyring (on a private
// bus) by the attribute canopy=NAME: found, in any case of the name,
// through an encrypted and a plain session; bound to origins by the
// attribute origins and refused elsewhere; the file and the environment
// answer first; a missing name lists the three places; a locked keyring is
// a one-line error, at once, with no prompt; an item with a bad origin or
// two items of one name are refused.
func TestKeyring(t *testing.T) {
	k := keyringtest.Start(t)
	const (
		ghValue   = "gh-Keyring-s3cret"
		bankValue = "bank-Keyring-s3cret"
	)
	values := []string{ghValue, bankValue, "odd-value", "twice-1", "twice-2"}
	k.Store(t, "canopy github", ghValue, map[string]string{"canopy": "github"})
	k.Store(t, "canopy bank", bankValue, map[string]string{"canopy": "bank", "origins": "https://bank.example/login, http://127.0.0.1:8080"})
	k.Store(t, "canopy odd", "odd-value", map[string]string{"canopy": "odd", "origins": "https://ok.example,not a url"})
	k.Store(t, "canopy twice 1", "twice-1", map[string]string{"canopy": "twice", "n": "1"})
	k.Store(t, "canopy twice 2", "twice-2", map[string]string{"canopy": "twice", "n": "2"})
	k.Store(t, "other app", "not-canopy", map[string]string{"service": "github"})

	p, err := Open(action.Act, Keyring(k.Address()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, page, want string
		unbound          bool
	}{
		{"github", "https://github.com/login", ghValue, false},
		{"GitHub", "", ghValue, false},
		{"bank", "https://bank.example/account", bankValue, false},
		{"bank", "http://127.0.0.1:8080/pay", bankValue, false},
		{"bank", "https://evil.example/bank.example", "", true},
		{"bank", "", "", true},
	} {
		v, took, err := secretOf(t, p, c.name, c.page, values...)
		if v != c.want || errors.Is(err, ErrUnbound) != c.unbound || took > quick {
			t.Errorf("Secret(%q, %q) = %q, %v (in %v)", c.name, c.page, v, err, took)
		}
	}
	if s, err := keyringLookup(context.Background(), k.Address(), "github", plainAlgorithm); err != nil || s.value != ghValue {
		t.Errorf("through a plain session: %q, %v", s.value, err)
	}
	// gnome-keyring offers the encrypted session: it was the one used.
	conn, err := dbus.Connect(k.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, key, err := openSession(context.Background(), conn.Object(secretService, secretPath), dhAlgorithm); err != nil || len(key) != 16 {
		t.Errorf("no encrypted session: key %d bytes, %v", len(key), err)
	}

	_, _, err = secretOf(t, p, "missing", "", values...)
	for _, want := range []string{`credential "missing" is not set anywhere`, "no --secrets file", "$CANOPY_SECRET_MISSING is not set", "no keyring item has canopy=missing", `secret-tool store --label="canopy missing" canopy missing`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a missing name: %v, want %q", err, want)
		}
	}
	if _, _, err := secretOf(t, p, "odd", "https://ok.example", values...); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), `origin that is not a URL: "not a url"`) {
		t.Errorf("an item with a bad origin: %v", err)
	}
	if _, _, err := secretOf(t, p, "twice", "", values...); err == nil || !strings.Contains(err.Error(), "2 keyring items have canopy=twice: keep one") {
		t.Errorf("two items of one name: %v", err)
	}

	// The file and the environment answer before the keyring; a binding
	// in the keyring is not lifted by the environment, it is not asked.
	file := writeSecrets(t, `{"github": "from-file"}`, 0o600)
	pf, err := Open(action.Act, Keyring(k.Address()), Secrets(file))
	if err != nil {
		t.Fatal(err)
	}
	if v, _, err := secretOf(t, pf, "github", ""); v != "from-file" || err != nil {
		t.Errorf("the file first: %q, %v", v, err)
	}
	t.Setenv("CANOPY_SECRET_GITHUB", "from-env")
	if v, _, err := secretOf(t, p, "github", ""); v != "from-env" || err != nil {
		t.Errorf("the environment before the keyring: %q, %v", v, err)
	}
	t.Setenv("CANOPY_SECRET_GITHUB", "")

	k.Lock(t)
	v, took, err := secretOf(t, p, "github", "https://github.com", values...)
	if v != "" || !errors.Is(err, errLocked) || took > quick ||
		!strings.HasPrefix(err.Error(), `credential "github" is in the keyring, but the keyring is locked: unlock it`) {
		t.Errorf("locked: %q, %v (in %v)", v, err, took)
	}
	// The policy stays usable: the other sources still answer.
	t.Setenv("CANOPY_SECRET_OTHER", "o")
	if v, _, err := secretOf(t, p, "other", ""); v != "o" || err != nil {
		t.Errorf("after a locked keyring: %q, %v", v, err)
	}
}

// TestKeyringAbsent: no Secret Service on the bus, no bus, a bus that does
// not answer: the name is not set anywhere, one line naming the three
// places, at once. Keyring("") asks none. The keyring is asked only for a
// credential the file and environment lack, never when the policy is
// made.
func TestKeyringAbsent(t *testing.T) {
	bare, _ := keyringtest.Bus(t)
	for _, c := range []struct {
		what string
		opts []Option
		env  string
		want string
	}{
		{"no Secret Service", []Option{Keyring(bare)}, "", "and there is no keyring (no Secret Service on the session bus)"},
		{"no session bus", nil, "", "and there is no keyring (no session bus: $DBUS_SESSION_BUS_ADDRESS is not set)"},
		{"the default session bus", nil, bare, "and there is no keyring (no Secret Service on the session bus)"},
		{"a dead bus", []Option{Keyring("unix:path=/nonexistent/canopy-bus")}, "", "and there is no keyring (the session bus does not answer"},
	} {
		t.Run(c.what, func(t *testing.T) {
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", c.env)
			p, err := Open(action.Act, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, took, err := secretOf(t, p, "github", "")
			if err == nil || !strings.HasPrefix(err.Error(), `credential "github" is not set anywhere: no --secrets file, $CANOPY_SECRET_GITHUB is not set, `) ||
				!strings.Contains(err.Error(), c.want) || took > quick {
				t.Errorf("%v (in %v), want %q", err, took, c.want)
			}
		})
	}

	off := New(action.Act, Keyring(""))
	if _, err := off.Secret(context.Background(), "github", ""); err == nil || err.Error() != `credential "github" is not set: no --secrets file, and $CANOPY_SECRET_GITHUB is not set` {
		t.Errorf("no keyring asked: %v", err)
	}
	// Lazy: a keyring that cannot be reached stops nothing until a
	// credential only it could give is typed.
	dead, err := Open(action.Act, Keyring("unix:path=/nonexistent/canopy-bus"))
	if err != nil {
		t.Fatalf("Open asked the keyring: %v", err)
	}
	t.Setenv("CANOPY_SECRET_GITHUB", "e")
	if v, err := dead.Secret(context.Background(), "github", ""); v != "e" || err != nil {
		t.Errorf("the environment waited on the keyring: %q, %v", v, err)
	}
}

// hung is a Secret Service that never answers a search.
type hung struct{ release chan struct{} }

func (h hung) SearchItems(map[string]string) ([]dbus.ObjectPath, []dbus.ObjectPath, *dbus.Error) {
	<-h.release
	return nil, nil, nil
}

// TestKeyringHangs: a Secret Service that does not answer (a locked item
// waiting on a prompt) is an error when the lookup's time is up, not a
// stuck action.
func TestKeyringHangs(t *testing.T) {
	addr, _ := keyringtest.Bus(t)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	h := hung{release: make(chan struct{})}
	defer close(h.release)
	if err := conn.Export(h, secretPath, secretIface+".Service"); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName(secretService, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v, %v", secretService, r, err)
	}
	p := New(action.Act, Keyring(addr))
	p.keyringWait = 300 * time.Millisecond
	_, took, err := secretOf(t, p, "github", "")
	if err == nil || err.Error() != `credential "github": the keyring did not answer within 300ms: context deadline exceeded` || took > quick {
		t.Errorf("%v (in %v)", err, took)
	}
}

// TestDH: the group is the 1024-bit prime of RFC 2409; a key agreed from
// both sides is the same; decrypt refuses bad padding.
func TestDH(t *testing.T) {
	if ietf1024.BitLen() != 1024 || !ietf1024.ProbablyPrime(20) {
		t.Fatal("ietf1024 is not a 1024-bit prime")
	}
	a, pa, err := dhPair()
	if err != nil {
		t.Fatal(err)
	}
	b, pb, err := dhPair()
	if err != nil {
		t.Fatal(err)
	}
	ka, err := dhKey(a, pb.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	kb, err := dhKey(b, pa.Bytes())
	if err != nil || string(ka) != string(kb) || len(ka) != 16 {
		t.Fatalf("keys differ: %x %x %v", ka, kb, err)
	}
	if _, err := dhKey(a, big.NewInt(1).Bytes()); err == nil {
		t.Error("a peer key of 1 was taken")
	}
	iv := make([]byte, 16)
	seal := func(plain []byte) []byte {
		block, err := aes.NewCipher(ka)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]byte, len(plain))
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, plain)
		return out
	}
	if v, err := decrypt(ka, iv, seal([]byte("hello\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b"))); string(v) != "hello" || err != nil {
		t.Errorf("decrypt: %q, %v", v, err)
	}
	for _, bad := range []string{"hello\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0a", "0123456789abcde\x00", "0123456789abcde\x11"} {
		if _, err := decrypt(ka, iv, seal([]byte(bad))); err == nil {
			t.Errorf("bad padding %q decrypted", bad)
		}
	}
	if _, err := decrypt(ka, make([]byte, 15), make([]byte, 16)); err == nil {
		t.Error("a short IV was taken")
	}
}
