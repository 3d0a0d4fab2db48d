package policy

// The desktop keyring as the third source of credentials: a small client
// of the freedesktop Secret Service API (org.freedesktop.secrets on the
// session bus), as gnome-keyring, KeePassXC and KWallet offer it.
//
// Convention. A credential NAME is the item whose attribute "canopy" is
// NAME; an optional attribute "origins" (comma-separated URLs) binds it
// as a secrets-file entry is bound:
//
//	secret-tool store --label="canopy github" canopy github
//	secret-tool store --label="canopy bank" canopy bank origins=https://bank.example
//
// The keyring is asked last (secrets file, environment, keyring) and only
// when a credential is typed: no connection is made when the policy is
// built, so a session without a keyring starts as before, and a credential
// given by file or environment never waits on D-Bus. Each lookup makes its
// own connection and closes it; every call on it is capped by
// keyringTimeout. A locked item is reported, never unlocked: unlocking
// would pop a prompt on the user's screen for an agent's action.

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// keyringTimeout caps one keyring lookup, connection included: a keyring
// that hangs (a locked item whose service waits on a prompt, a stuck bus)
// becomes an error, not a stuck action.
const keyringTimeout = 5 * time.Second

// The Secret Service's names, and the attributes of canopy's items.
const (
	secretService                  = "org.freedesktop.secrets"
	secretPath     dbus.ObjectPath = "/org/freedesktop/secrets"
	secretIface                    = "org.freedesktop.Secret"
	keyringName                    = "canopy"  // attribute: the credential's name
	keyringOrigins                 = "origins" // attribute: comma-separated origins it is bound to
	dhAlgorithm                    = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
	plainAlgorithm                 = "plain"
)

// Keyring sets the D-Bus address of the bus the desktop keyring (the
// Secret Service) is asked on, for credentials neither the secrets file
// nor the environment gives. Without this option it is the session bus,
// $DBUS_SESSION_BUS_ADDRESS as it is when a credential is typed (a bus is
// never started for it); Keyring("") asks no keyring.
//
// Items are found by the attribute canopy=NAME; an attribute
// origins=URL,URL binds one to those origins (see Secret).
func Keyring(address string) Option {
	return func(p *Policy) {
		p.keyringSet = true
		p.keyringAddr = address
	}
}

// Why the keyring gave no value; each wraps into a one-line error.
var (
	// errNoKeyring: no bus, or no Secret Service on it.
	errNoKeyring = errors.New("no keyring")
	// errNotInKeyring: the keyring answered and holds no such item.
	errNotInKeyring = errors.New("not in the keyring")
	// errLocked: the item is there, in a locked collection.
	errLocked = errors.New("the keyring is locked")
)

// keyringBus is the address the keyring is asked on, and whether it is
// asked at all.
func (p *Policy) keyringBus() (string, bool) {
	if p.keyringSet {
		return p.keyringAddr, p.keyringAddr != ""
	}
	return os.Getenv("DBUS_SESSION_BUS_ADDRESS"), true
}

// fromKeyring asks the keyring for the credential name, within
// keyringTimeout. Its errors never hold a value.
func (p *Policy) fromKeyring(ctx context.Context, name string) (secret, error) {
	addr, _ := p.keyringBus()
	if addr == "" {
		return secret{}, fmt.Errorf("%w (no session bus: $DBUS_SESSION_BUS_ADDRESS is not set)", errNoKeyring)
	}
	wait := p.keyringWait
	if wait <= 0 {
		wait = keyringTimeout
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	s, err := keyringLookup(ctx, addr, name, dhAlgorithm)
	switch {
	case err == nil:
		return s, nil
	case parent.Err() != nil:
		return secret{}, parent.Err()
	case ctx.Err() != nil:
		return secret{}, fmt.Errorf("the keyring did not answer within %s: %w", wait, ctx.Err())
	}
	return secret{}, err
}

// keyringLookup finds the item of the credential name on the bus at addr
// and reads its secret through a session of algorithm alg (dhAlgorithm,
// falling back to plain when the service offers no other, or plain).
func keyringLookup(ctx context.Context, addr, name, alg string) (secret, error) {
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return secret{}, fmt.Errorf("%w (the session bus does not answer: %v)", errNoKeyring, err)
	}
	defer conn.Close()
	svc := conn.Object(secretService, secretPath)

	item, err := findItem(ctx, svc, name)
	if err != nil {
		return secret{}, err
	}
	obj := conn.Object(secretService, item)
	var attrs dbus.Variant
	if err := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, secretIface+".Item", "Attributes").Store(&attrs); err != nil {
		return secret{}, keyringErr("read the item's attributes", err)
	}
	var a map[string]string
	if err := attrs.Store(&a); err != nil {
		return secret{}, fmt.Errorf("read the item's attributes: %w", err)
	}
	var s secret
	for o := range strings.SplitSeq(a[keyringOrigins], ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		origin := originOf(o)
		if origin == "" {
			return secret{}, fmt.Errorf("its keyring item has an origin that is not a URL: %q (origins=https://site,https://other): %w", o, ErrDenied)
		}
		s.origins = append(s.origins, origin)
	}

	sess, key, err := openSession(ctx, svc, alg)
	if err != nil {
		return secret{}, err
	}
	defer conn.Object(secretService, sess).CallWithContext(ctx, secretIface+".Session.Close", 0)
	var got struct {
		Session     dbus.ObjectPath
		Parameters  []byte
		Value       []byte
		ContentType string
	}
	if err := obj.CallWithContext(ctx, secretIface+".Item.GetSecret", 0, sess).Store(&got); err != nil {
		return secret{}, keyringErr("read the item's secret", err)
	}
	v, err := decrypt(key, got.Parameters, got.Value)
	clear(got.Value)
	if err != nil {
		return secret{}, err
	}
	s.value = string(v)
	clear(v)
	return s, nil
}

// findItem is the one unlocked item with canopy=name (or the name in lower
// case: names are case-insensitive elsewhere).
func findItem(ctx context.Context, svc dbus.BusObject, name string) (dbus.ObjectPath, error) {
	names := []string{name}
	if low := strings.ToLower(name); low != name {
		names = append(names, low)
	}
	var unlocked, locked []dbus.ObjectPath
	for _, n := range names {
		search := func() error {
			return svc.CallWithContext(ctx, secretIface+".Service.SearchItems", 0, map[string]string{keyringName: n}).Store(&unlocked, &locked)
		}
		err := search()
		var de dbus.Error
		if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.UnknownMethod" {
			// gnome-keyring answers so for a moment now and then (seen
			// under load while it was busy with its collections): once
			// more, shortly after.
			select {
			case <-time.After(100 * time.Millisecond):
				err = search()
			case <-ctx.Done():
			}
		}
		if err != nil {
			return "", keyringErr("search the keyring", err)
		}
		if len(unlocked)+len(locked) > 0 {
			break
		}
	}
	switch {
	case len(unlocked) == 1:
		return unlocked[0], nil
	case len(unlocked) > 1:
		return "", fmt.Errorf("%d keyring items have canopy=%s: keep one", len(unlocked), name)
	case len(locked) > 0:
		return "", errLocked
	}
	return "", errNotInKeyring
}

// keyringErr words a D-Bus error of the Secret Service: no service on the
// bus is errNoKeyring, a locked object errLocked; the rest is wrapped.
func keyringErr(doing string, err error) error {
	var de dbus.Error
	if errors.As(err, &de) {
		switch {
		case de.Name == "org.freedesktop.DBus.Error.ServiceUnknown",
			de.Name == "org.freedesktop.DBus.Error.NameHasNoOwner",
			strings.HasPrefix(de.Name, "org.freedesktop.DBus.Error.Spawn."):
			return fmt.Errorf("%w (no Secret Service on the session bus)", errNoKeyring)
		case de.Name == secretIface+".Error.IsLocked":
			return errLocked
		}
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// openSession opens a Secret Service session for transferring the secret:
// encrypted with a Diffie-Hellman key (dhAlgorithm), or in plain when the
// service offers nothing else or alg asks for it. Plain is acceptable
// here: the session bus is the user's own local socket, and a process
// that can read its traffic can as well ask the keyring itself. The key is
// nil for plain.
func openSession(ctx context.Context, svc dbus.BusObject, alg string) (dbus.ObjectPath, []byte, error) {
	var out dbus.Variant
	var path dbus.ObjectPath
	if alg == dhAlgorithm {
		priv, pub, err := dhPair()
		if err != nil {
			return "", nil, err
		}
		err = svc.CallWithContext(ctx, secretIface+".Service.OpenSession", 0, dhAlgorithm, dbus.MakeVariant(pub.Bytes())).Store(&out, &path)
		var de dbus.Error
		if err == nil {
			peer, ok := out.Value().([]byte)
			if !ok {
				return "", nil, fmt.Errorf("open a keyring session: the service answered %s, not bytes", out.Signature())
			}
			key, err := dhKey(priv, peer)
			if err != nil {
				return "", nil, err
			}
			return path, key, nil
		}
		if !errors.As(err, &de) || de.Name != "org.freedesktop.DBus.Error.NotSupported" {
			return "", nil, keyringErr("open a keyring session", err)
		}
	}
	if err := svc.CallWithContext(ctx, secretIface+".Service.OpenSession", 0, plainAlgorithm, dbus.MakeVariant("")).Store(&out, &path); err != nil {
		return "", nil, keyringErr("open a keyring session", err)
	}
	return path, nil, nil
}

// ietf1024 is the prime of the Second Oakley Group (RFC 2409 §6.2), the
// group dh-ietf1024-sha256-aes128-cbc-pkcs7 uses, with generator 2.
var ietf1024, _ = new(big.Int).SetString(
	"FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD1"+
		"29024E088A67CC74020BBEA63B139B22514A08798E3404DD"+
		"EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245"+
		"E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"+
		"EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381"+
		"FFFFFFFFFFFFFFFF", 16)

// dhPair makes a private key and its public value 2^priv mod p.
func dhPair() (priv, pub *big.Int, err error) {
	b := make([]byte, 128)
	if _, err := rand.Read(b); err != nil {
		return nil, nil, fmt.Errorf("open a keyring session: %w", err)
	}
	priv = new(big.Int).SetBytes(b)
	pub = new(big.Int).Exp(big.NewInt(2), priv, ietf1024)
	return priv, pub, nil
}

// dhKey derives the AES-128 key from the service's public value, as
// libsecret does: the shared secret, padded to the prime's 128 bytes, through
// HKDF-SHA256 with no salt and no info.
func dhKey(priv *big.Int, peer []byte) ([]byte, error) {
	y := new(big.Int).SetBytes(peer)
	if y.Cmp(big.NewInt(1)) <= 0 || y.Cmp(new(big.Int).Sub(ietf1024, big.NewInt(1))) >= 0 {
		return nil, errors.New("open a keyring session: the service's key is out of range")
	}
	shared := new(big.Int).Exp(y, priv, ietf1024).FillBytes(make([]byte, 128))
	key, err := hkdf.Key(sha256.New, shared, nil, "", 16)
	clear(shared)
	if err != nil {
		return nil, fmt.Errorf("open a keyring session: %w", err)
	}
	return key, nil
}

// decrypt undoes AES-128-CBC with PKCS#7 padding (iv is the secret's
// parameters); with no key (plain) the value is as sent.
func decrypt(key, iv, value []byte) ([]byte, error) {
	if key == nil {
		return append([]byte(nil), value...), nil
	}
	bad := errors.New("the keyring sent a secret that does not decrypt")
	if len(iv) != aes.BlockSize || len(value) == 0 || len(value)%aes.BlockSize != 0 {
		return nil, bad
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("decrypt the secret: %w", err)
	}
	out := make([]byte, len(value))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, value)
	pad := int(out[len(out)-1])
	if pad == 0 || pad > aes.BlockSize {
		clear(out)
		return nil, bad
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			clear(out)
			return nil, bad
		}
	}
	return out[:len(out)-pad], nil
}
