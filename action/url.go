package action

import "strings"

// NormalizeURL adds http:// to an address typed without a scheme, as people
// type it ("127.0.0.1:8080/login", "example.com/a"). An address with a
// scheme keeps it ("https://…", "about:blank", "javascript:…"), so what
// the tier is decided on (URLTier) is what the browser loads.
func NormalizeURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" || Scheme(u) != "" {
		return u
	}
	return "http://" + u
}

// Scheme returns a URL's scheme in lower case, or "" when it has none. A
// host and port ("localhost:8080/x") is not a scheme and a port.
func Scheme(u string) string {
	i := strings.IndexByte(u, ':')
	if i <= 0 {
		return ""
	}
	for k, r := range u[:i] {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (k == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return ""
		}
	}
	rest := u[i+1:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if rest != "" && strings.Trim(rest, "0123456789") == "" {
		return "" // host:port
	}
	return strings.ToLower(u[:i])
}

// URLTier is the tier loading u needs (SPEC §6): web pages (http, https)
// and about:blank at act; every other scheme runs script in a page's
// origin (javascript:), makes a page of the caller's choosing (data:), or
// reads the machine and the browser (file:, view-source:, chrome:):
// sensitive. u is normalized first.
func URLTier(u string) Tier {
	u = NormalizeURL(u)
	switch Scheme(u) {
	case "http", "https":
		return Act
	case "about":
		if strings.EqualFold(u, "about:blank") {
			return Act
		}
	}
	return Sensitive
}
