// Package leaktest finds a secret in test output in the shapes a page or
// an encoder can turn it into, for tests that no reply, error, log or
// audit line holds a credential.
package leaktest

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// Shapes lists the shapes of secret found in text: as is, upper-cased,
// spaced out, cut to 10 and 12 characters, URL-, JSON- and
// base64-encoded.
func Shapes(secret, text string) []string {
	forms := map[string]string{
		"plain": secret, "upper": strings.ToUpper(secret), "spaced": strings.Join(strings.Split(secret, ""), " "),
		"cut10": secret[:min(10, len(secret))], "cut12": secret[:min(12, len(secret))], "query": url.QueryEscape(secret),
		"base64": base64.StdEncoding.EncodeToString([]byte(secret)),
	}
	if j, err := json.Marshal(secret); err == nil {
		forms["json"] = string(j[1 : len(j)-1])
	}
	var found []string
	for name, f := range forms {
		if strings.Contains(text, f) {
			found = append(found, name)
		}
	}
	slices.Sort(found)
	return found
}

// Copies lists the shapes of secret found in text, Shapes' and those a
// page makes of a copy: cut at the front (all but the first character,
// the last 10), reversed, hex-encoded in either case.
func Copies(secret, text string) []string {
	found := Shapes(secret, text)
	runes := []rune(secret)
	rev := slices.Clone(runes)
	slices.Reverse(rev)
	hx := hex.EncodeToString([]byte(secret))
	for name, f := range map[string]string{
		"suffix": string(runes[min(1, len(runes)):]), "last10": string(runes[max(0, len(runes)-10):]),
		"reversed": string(rev), "hex": hx, "HEX": strings.ToUpper(hx),
	} {
		if strings.Contains(text, f) {
			found = append(found, name)
		}
	}
	slices.Sort(found)
	return found
}
