package policy

import (
	"fmt"
	"os"
	"strings"
)

// SecretEnvPrefix starts the environment variables secrets are read from:
// the credential "github" is $CANOPY_SECRET_GITHUB.
const SecretEnvPrefix = "CANOPY_SECRET_"

// Secret resolves the credential name to its value, at the last moment
// before it is typed. Agents name credentials; they never see their values
// (the executor keeps them out of every reply). Only variables with the
// CANOPY_SECRET_ prefix can be read, so an agent cannot type out an
// arbitrary environment variable such as $HOME or a cloud key.
func (p *Policy) Secret(name string) (string, error) {
	env := SecretEnv(name)
	if env == "" {
		return "", fmt.Errorf("credential %q: a name is letters, digits, - and _: %w", name, ErrDenied)
	}
	v, ok := os.LookupEnv(env)
	if !ok || v == "" {
		return "", fmt.Errorf("credential %q is not set (set $%s in canopy's environment)", name, env)
	}
	return v, nil
}

// SecretEnv returns the environment variable holding credential name, or
// "" when the name is not a valid credential name.
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
