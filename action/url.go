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

// browserSchemes are the schemes Chromium loads itself (or refuses to
// load); every other scheme is an external one, whose URLs the browser
// hands to the desktop's handler of it (mailto:, tel:, an app's own).
var browserSchemes = map[string]bool{
	"http": true, "https": true, "about": true, "blob": true, "data": true,
	"file": true, "filesystem": true, "javascript": true, "view-source": true,
	"ws": true, "wss": true, "chrome": true, "chrome-error": true,
	"chrome-extension": true, "chrome-native": true, "chrome-search": true,
	"chrome-untrusted": true, "devtools": true, "isolated-app": true,
}

// BrowserSchemes lists the schemes the browser loads itself (or refuses
// to load), in no order: every other scheme is External.
func BrowserSchemes() []string {
	out := make([]string, 0, len(browserSchemes))
	for s := range browserSchemes {
		out = append(out, s)
	}
	return out
}

// External reports whether u has an external scheme: one the browser does
// not load but hands to another application (mailto:, tel:, myapp:). u
// is normalized first: an address without a scheme is a web page.
func External(u string) bool {
	s := Scheme(NormalizeURL(u))
	return s != "" && !browserSchemes[s]
}

// URLTier is the tier loading u needs (docs/tiers.md): web pages (http, https)
// and about:blank at act; an external scheme (mailto:, tel:, an app's own)
// at act too, since handing a URL to the application the desktop installed
// for it is what a click on such a link does, and the browser's own rules
// (it asks first for all but mailto:) still hold
// (docs/decisions/2026-11-24-external-schemes.md). Every other scheme runs
// script in a page's origin (javascript:), makes a page of the caller's
// choosing (data:), or reads the machine and the browser (file:,
// view-source:, chrome:): sensitive. u is normalized first.
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
	if External(u) {
		return Act
	}
	return Sensitive
}
