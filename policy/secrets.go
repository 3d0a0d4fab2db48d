package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
)

// SecretEnvPrefix starts the environment variables secrets are read from:
// the credential "github" is $CANOPY_SECRET_GITHUB.
const SecretEnvPrefix = "CANOPY_SECRET_"

// secret is one entry of a secrets file: its value and, when bound, the
// origins it may be typed into.
type secret struct {
	value   string
	origins []string // "https://github.com"; none: anywhere
}

// Secrets loads a secrets file (--secrets FILE): a JSON object from names
// to values, or to {"value": …, "origins": [URL…]} for a secret that may
// be typed only into pages of those origins:
//
//	{"github": {"value": "…", "origins": ["https://github.com"]},
//	 "wifi": "…"}
//
// The file must be readable by its owner alone (mode 0600 or stricter):
// a secret others can read is refused, and so is a file that does not
// parse: Open fails.
func Secrets(path string) Option {
	return func(p *Policy) {
		p.secretsPath = path
		p.secrets, p.secretsErr = loadSecrets(path)
	}
}

// loadSecrets reads and checks a secrets file. Errors never quote the
// file's content.
func loadSecrets(path string) (map[string]secret, error) {
	if path == "" {
		return nil, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("secrets file: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("secrets file %s is readable by others (mode %04o): chmod 600 %s", path, perm, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("secrets file: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("secrets file %s is not a JSON object of names to values (line and content not shown)", path)
	}
	out := make(map[string]secret, len(raw))
	for name, v := range raw {
		if SecretEnv(name) == "" {
			return nil, fmt.Errorf("secrets file %s: %q is not a credential name (letters, digits, - and _)", path, name)
		}
		var s secret
		var plain string
		var bound struct {
			Value   string   `json:"value"`
			Origins []string `json:"origins"`
		}
		switch {
		case json.Unmarshal(v, &plain) == nil:
			s.value = plain
		case json.Unmarshal(v, &bound) == nil && bound.Value != "":
			s.value = bound.Value
			for _, o := range bound.Origins {
				origin := originOf(o)
				if origin == "" {
					return nil, fmt.Errorf("secrets file %s: %q has an origin that is not a URL: %q", path, name, o)
				}
				s.origins = append(s.origins, origin)
			}
		default:
			return nil, fmt.Errorf("secrets file %s: %q is neither a string nor {\"value\": …, \"origins\": […]}", path, name)
		}
		out[strings.ToLower(name)] = s
	}
	return out, nil
}

// originOf is a URL's origin, "scheme://host[:port]" in lower case, or "".
func originOf(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || p.Scheme == "" || p.Host == "" {
		return ""
	}
	return strings.ToLower(p.Scheme + "://" + p.Host)
}

// ErrUnbound marks a credential refused because the page is not one of
// the origins it is bound to.
var ErrUnbound = errors.New("credential not bound to this page")

// Secret resolves the credential name to its value, at the last moment
// before it is typed into the document at pageURL: the page or frame that
// holds the field that receives it ("" on the desktop). Agents
// name credentials; they never see their values (the executor keeps them
// out of every reply). Three sources are asked, in this order, and the
// first that has the name answers:
//
//  1. the secrets file (Secrets);
//  2. the environment, $CANOPY_SECRET_<NAME>: only variables with that
//     prefix can be read, so an agent cannot type out $HOME or a cloud
//     key;
//  3. the desktop keyring (the Secret Service, see Keyring): the item
//     whose attribute canopy is the name. It is asked only here, when a
//     credential is typed, never when the policy is made, and within 5
//     seconds; a locked keyring is reported, not unlocked.
//
// A secret bound to origins (in the file, or by a keyring item's origins
// attribute) is typed only into their pages, and no later source stands in
// for it. Errors are one line and never hold a value.
func (p *Policy) Secret(ctx context.Context, name, pageURL string) (string, error) {
	env := SecretEnv(name)
	if env == "" {
		return "", fmt.Errorf("credential %q: a name is letters, digits, - and _: %w", name, ErrDenied)
	}
	if s, ok := p.secrets[strings.ToLower(name)]; ok {
		return s.typedInto(name, pageURL)
	}
	if v, ok := os.LookupEnv(env); ok && v != "" {
		return v, nil
	}
	file := "no --secrets file"
	if p.secretsPath != "" {
		file = "not in " + p.secretsPath
	}
	if _, ok := p.keyringBus(); !ok {
		return "", fmt.Errorf("credential %q is not set: %s, and $%s is not set", name, file, env)
	}
	s, err := p.fromKeyring(ctx, name)
	switch {
	case err == nil:
		return s.typedInto(name, pageURL)
	case errors.Is(err, errNotInKeyring):
		return "", fmt.Errorf("credential %q is not set anywhere: %s, $%s is not set, and no keyring item has %s=%s (secret-tool store --label=%q %s %s)",
			name, file, env, keyringName, name, "canopy "+name, keyringName, name)
	case errors.Is(err, errNoKeyring):
		return "", fmt.Errorf("credential %q is not set anywhere: %s, $%s is not set, and there is %v", name, file, env, err)
	case errors.Is(err, errLocked):
		return "", fmt.Errorf("credential %q is in the keyring, but %w: unlock it (log in to the desktop session, or unlock the keyring in its app) and try again", name, errLocked)
	}
	return "", fmt.Errorf("credential %q: %w", name, err)
}

// typedInto is the secret's value when it may be typed into a page at
// pageURL: anywhere when unbound, else only into its origins.
func (s secret) typedInto(name, pageURL string) (string, error) {
	if len(s.origins) > 0 && !slices.Contains(s.origins, originOf(pageURL)) {
		where := originOf(pageURL)
		if where == "" {
			where = "a page of no web origin"
		}
		return "", fmt.Errorf("credential %q may be typed only into %s, not %s: %w: %w",
			name, strings.Join(s.origins, ", "), where, ErrUnbound, ErrDenied)
	}
	return s.value, nil
}

// EachSecret calls fn with the name and value of every credential the
// policy can resolve without asking the keyring (which cannot be listed):
// the secrets file's entries, then the $CANOPY_SECRET_* variables set now,
// named by the rest of the variable's name in lower case. A session learns
// them when it starts, so that no shape of one shows in a reply, whether
// this session typed it or another did. The order is not specified.
func (p *Policy) EachSecret(fn func(name, value string)) {
	for name, s := range p.secrets {
		if s.value != "" {
			fn(name, s.value)
		}
	}
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		name, found := strings.CutPrefix(k, SecretEnvPrefix)
		if ok && found && name != "" && v != "" {
			fn(strings.ToLower(name), v)
		}
	}
}

// SecretEnv is the environment variable of the credential name, or "" when
// the name is not a valid credential name.
func SecretEnv(name string) string {
	if name == "" || len(name) > 64 {
		return ""
	}
	var b strings.Builder
	b.WriteString(SecretEnvPrefix)
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '-':
			b.WriteByte('_')
		default:
			return ""
		}
	}
	return b.String()
}
