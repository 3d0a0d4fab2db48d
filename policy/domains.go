package policy

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"github.com/canopy-dev/canopy/action"
)

// DomainList is the --domains rule: where the browser may go. It is judged
// on every document the browser loads (a navigation, each redirect hop, a
// frame, a popup or new tab, a form submission) by the browser's request
// interception, on the URL of navigate and tabs new before anything loads,
// and on the frame an action's target lies in.
//
// A pattern names a host:
//
//	example.com            that host, any scheme and port
//	*.example.com          its subdomains, and example.com itself
//	https://example.com    that host over https only (http, https, ws, wss)
//	127.0.0.1:8080         that host on port 8080 only (the scheme's default
//	                       port counts: example.com:443 matches https://example.com)
//	[::1]:8080             an IPv6 address, in brackets
//	*                      every host
//	mailto:                links of that external scheme (mailto:, tel:, an
//	                       app's own x-foo:), which the browser hands to
//	                       another application
//	!pattern               refuses what pattern matches
//
// A refusal wins over everything. When any allowing host pattern is given,
// a URL no allowing pattern matches is refused; with refusing host patterns
// only, every other host is allowed. Hosts compare case-insensitively, without a
// trailing dot, internationalized names in their ASCII form. A pattern
// with a path, a wildcard inside a name, or an unknown scheme does not
// parse, and an unparsable pattern stops the session from starting (fail
// closed).
//
// URLs that name no host:
//   - about:blank and about:srcdoc are always allowed: they show an empty
//     or inline document of the page that made them, which is judged in
//     its own right;
//   - blob: and filesystem: URLs are judged by the origin inside them
//     (blob:https://example.com/… as https://example.com);
//   - an external scheme's URL (mailto:, tel:, x-foo:, everything the
//     browser does not load itself but hands to another application) is
//     refused under every list, allowing or refusing, unless a scheme
//     pattern names it (mailto:): it leaves the browser for an app no host
//     pattern can name;
//   - every other scheme (data:, javascript:, file:, chrome:, the browser's
//     own error pages…) is refused while an allowing host pattern is given,
//     since it is not a place the list names; with refusing patterns only
//     it is left to the tier rules (such URLs need the sensitive tier
//     anyway).
//
// A URL that cannot be read is refused.
type DomainList struct {
	allow, deny []hostRule
	schemes     bool // an allowing pattern names a scheme: messages show it
	// allowApps and denyApps are the scheme patterns (mailto:), by lower-case
	// scheme without its colon, each with the pattern as given.
	allowApps, denyApps map[string]string
}

// hostRule is one parsed pattern.
type hostRule struct {
	text   string // the pattern as given, for messages
	scheme string // "" for any
	host   string // lower-case ASCII; "" with anyHost
	sub    bool   // *.host: subdomains and the host itself
	any    bool   // *: every host
	port   string // "" for any
}

// networkSchemes are the schemes whose URLs name a host the list judges.
var networkSchemes = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}

// ParseDomains reads --domains patterns (see DomainList). It returns nil
// for no patterns, and an error naming the first pattern that does not
// parse.
func ParseDomains(patterns ...string) (*DomainList, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	d := &DomainList{}
	for _, p := range patterns {
		if scheme, deny, ok, err := parseSchemeRule(p); ok || err != nil {
			if err != nil {
				return nil, fmt.Errorf("--domains %q: %w", p, err)
			}
			d.addApp(scheme, strings.TrimSpace(p), deny)
			continue
		}
		r, deny, err := parseHostRule(p)
		if err != nil {
			return nil, fmt.Errorf("--domains %q: %w", p, err)
		}
		if deny {
			d.deny = append(d.deny, r)
			continue
		}
		d.allow = append(d.allow, r)
		d.schemes = d.schemes || r.scheme != ""
	}
	return d, nil
}

// parseSchemeRule reads a scheme pattern ("mailto:", "!tel:"): ok says raw
// is one (a scheme and a colon, nothing after it), deny that it began with
// "!". A scheme the browser loads itself is no scheme pattern: its URLs
// are the tiers' business, or a host's.
func parseSchemeRule(raw string) (scheme string, deny, ok bool, err error) {
	p := strings.TrimSpace(raw)
	deny = strings.HasPrefix(p, "!")
	if deny {
		p = strings.TrimSpace(p[1:])
	}
	if !strings.HasSuffix(p, ":") || strings.Contains(p, "/") {
		return "", deny, false, nil
	}
	scheme = action.Scheme(p)
	if scheme == "" || len(scheme) != len(p)-1 {
		return "", deny, false, nil
	}
	if !action.External(p) {
		if _, network := networkSchemes[scheme]; network {
			return "", deny, true, fmt.Errorf("%s: names no host: write %s://example.com", p, scheme)
		}
		return "", deny, true, fmt.Errorf("the browser loads %s URLs itself: a scheme pattern names another application's scheme (mailto:, tel:); %s URLs need the sensitive tier", p, p)
	}
	return scheme, deny, true, nil
}

// addApp adds a scheme pattern.
func (d *DomainList) addApp(scheme, text string, deny bool) {
	m := &d.allowApps
	if deny {
		m = &d.denyApps
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[scheme] = text
}

// parseHostRule reads one pattern; deny says it began with "!".
func parseHostRule(raw string) (hostRule, bool, error) {
	p := strings.TrimSpace(raw)
	r := hostRule{text: p}
	deny := strings.HasPrefix(p, "!")
	if deny {
		p = strings.TrimSpace(p[1:])
	}
	if p == "" {
		return r, deny, fmt.Errorf("an empty pattern")
	}
	if scheme, rest, ok := strings.Cut(p, "://"); ok {
		r.scheme = strings.ToLower(scheme)
		if _, known := networkSchemes[r.scheme]; !known {
			return r, deny, fmt.Errorf("scheme %s: patterns name http, https, ws or wss hosts", scheme)
		}
		p = strings.TrimSuffix(rest, "/")
	}
	if strings.ContainsAny(p, "/?#@ \t") {
		return r, deny, fmt.Errorf("a pattern names a host (example.com, *.example.com, host:port), not a path or address")
	}
	host, port, err := splitHostPort(p)
	if err != nil {
		return r, deny, err
	}
	r.port = port
	switch {
	case host == "*":
		r.any = true
		return r, deny, nil
	case strings.HasPrefix(host, "*."):
		r.sub = true
		host = host[2:]
	}
	if strings.Contains(host, "*") {
		return r, deny, fmt.Errorf("a wildcard only stands for a whole leading name: *.example.com")
	}
	if r.host, err = canonicalHost(host); err != nil {
		return r, deny, err
	}
	return r, deny, nil
}

// splitHostPort splits "host", "host:port" or "[v6]:port".
func splitHostPort(p string) (host, port string, err error) {
	switch {
	case strings.HasPrefix(p, "["):
		end := strings.IndexByte(p, ']')
		if end < 0 {
			return "", "", fmt.Errorf("an IPv6 address without its closing ]")
		}
		var rest string
		host, rest = p[1:end], p[end+1:]
		if net.ParseIP(host) == nil {
			return "", "", fmt.Errorf("%s is not an IPv6 address", host)
		}
		if rest == "" {
			return host, "", nil
		}
		if !strings.HasPrefix(rest, ":") {
			return "", "", fmt.Errorf("%q after the IPv6 address", rest)
		}
		port = rest[1:]
	case strings.Count(p, ":") > 1:
		return "", "", fmt.Errorf("write an IPv6 address in brackets: [::1]")
	default:
		var ok bool
		host, port, ok = strings.Cut(p, ":")
		if !ok {
			return host, "", nil
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || port != strconv.Itoa(n) {
		return "", "", fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	return host, port, nil
}

// canonicalHost lower-cases a host name, drops a trailing dot and writes an
// internationalized name in its ASCII form; it refuses characters no host
// name has.
func canonicalHost(h string) (string, error) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return "", fmt.Errorf("no host")
	}
	if net.ParseIP(h) != nil {
		return h, nil
	}
	for _, c := range h {
		if c > 127 {
			a, err := idna.Lookup.ToASCII(h)
			if err != nil {
				return "", fmt.Errorf("host %s: %w", h, err)
			}
			return a, nil
		}
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", fmt.Errorf("%q is not a character of a host name", c)
		}
	}
	if strings.Contains(h, "..") || strings.HasPrefix(h, ".") {
		return "", fmt.Errorf("host %s has an empty name", h)
	}
	return h, nil
}

// matches reports whether the rule covers scheme://host:port (host
// canonical, port filled in from the scheme's default).
func (r hostRule) matches(scheme, host, port string) bool {
	if r.scheme != "" && r.scheme != scheme || r.port != "" && r.port != port {
		return false
	}
	switch {
	case r.any:
		return true
	case r.sub:
		return host == r.host || strings.HasSuffix(host, "."+r.host)
	}
	return host == r.host
}

// Allows says whether the browser may load rawURL: nil, or an error
// wrapping ErrDenied worded for the user, such as
// "127.0.0.2:8080 is not in --domains (127.0.0.1)". A nil list allows
// everything.
func (d *DomainList) Allows(rawURL string) error {
	if d == nil {
		return nil
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return fmt.Errorf("%s cannot be read to check it against --domains: %w", cut(rawURL), ErrDenied)
	}
	scheme := strings.ToLower(u.Scheme)
	if action.External(rawURL) {
		return d.allowsApp(action.Scheme(strings.TrimSpace(rawURL)))
	}
	switch scheme {
	case "about":
		if page, _, _ := strings.Cut(u.Opaque, "?"); page == "blank" || page == "srcdoc" {
			return nil
		}
	case "blob", "filesystem":
		inner := u.Opaque
		if inner == "" { // blob://host/… is not how blobs look, but judge it too
			inner = strings.TrimPrefix(u.String(), u.Scheme+":")
		}
		if action.Scheme(inner) != "" {
			return d.Allows(inner)
		}
	}
	def, network := networkSchemes[scheme]
	if !network {
		if len(d.allow) == 0 {
			return nil
		}
		return fmt.Errorf("%s: URLs are not in --domains (%s): %w", scheme, d.list(), ErrDenied)
	}
	host, herr := canonicalHost(u.Hostname())
	if herr != nil {
		return fmt.Errorf("%s names no host --domains can check: %w", cut(rawURL), ErrDenied)
	}
	port := u.Port()
	if port == "" {
		port = def
	}
	shown := u.Host
	if d.schemes {
		shown = scheme + "://" + u.Host
	}
	for _, r := range d.deny {
		if r.matches(scheme, host, port) {
			return fmt.Errorf("%s is refused by --domains (%s): %w", shown, r.text, ErrDenied)
		}
	}
	if len(d.allow) == 0 {
		return nil
	}
	for _, r := range d.allow {
		if r.matches(scheme, host, port) {
			return nil
		}
	}
	return fmt.Errorf("%s is not in --domains (%s): %w", shown, d.list(), ErrDenied)
}

// allowsApp judges a URL of an external scheme: refused unless a scheme
// pattern names it, and refused when a refusing one does.
func (d *DomainList) allowsApp(scheme string) error {
	if text, ok := d.denyApps[scheme]; ok {
		return fmt.Errorf("%s: links are refused by --domains (%s): %w", scheme, text, ErrDenied)
	}
	if _, ok := d.allowApps[scheme]; ok {
		return nil
	}
	return fmt.Errorf("%s: links open another application, which --domains allows only for the schemes it names (add %s: to it): %w", scheme, scheme, ErrDenied)
}

// AppSchemes lists the external schemes (without their colon) whose links
// the list allows, in no order: a browser stops links to every other
// external scheme before it hands one to an application.
func (d *DomainList) AppSchemes() []string {
	if d == nil {
		return nil
	}
	var out []string
	for s := range d.allowApps {
		if _, denied := d.denyApps[s]; !denied {
			out = append(out, s)
		}
	}
	return out
}

// list names the allowing patterns for a message, the first few of a long
// list.
func (d *DomainList) list() string {
	const most = 5
	var names []string
	for i, r := range d.allow {
		if i == most {
			names = append(names, fmt.Sprintf("… %d more", len(d.allow)-most))
			break
		}
		names = append(names, r.text)
	}
	return strings.Join(names, ", ")
}

// String is the list as --domains would be written.
func (d *DomainList) String() string {
	if d == nil {
		return ""
	}
	var all []string
	for _, r := range d.allow {
		all = append(all, r.text)
	}
	all = append(all, sortedValues(d.allowApps)...)
	for _, r := range d.deny {
		all = append(all, r.text)
	}
	all = append(all, sortedValues(d.denyApps)...)
	return strings.Join(all, ",")
}

// sortedValues is m's values in order.
func sortedValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// cut shortens a URL for a message.
func cut(u string) string {
	const limit = 120
	if r := []rune(u); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return u
}
