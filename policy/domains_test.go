package policy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// TestDomainsAllows: what each kind of pattern lets through, refusals
// worded for the user.
func TestDomainsAllows(t *testing.T) {
	for _, tc := range []struct {
		name     string
		patterns []string
		url      string
		want     string // "" allowed, else a part of the refusal
	}{
		{"host", []string{"example.com"}, "https://example.com/a?b", ""},
		{"host any port", []string{"example.com"}, "http://example.com:8080/", ""},
		{"host case and dot", []string{"Example.COM."}, "http://EXAMPLE.com./x", ""},
		{"host other", []string{"example.com"}, "https://evil.com/", "evil.com is not in --domains (example.com)"},
		{"host not sub", []string{"example.com"}, "https://www.example.com/", "www.example.com is not in --domains"},
		{"host suffix trick", []string{"example.com"}, "https://example.com.evil.net/", "is not in --domains"},
		{"userinfo trick", []string{"example.com"}, "https://example.com@evil.net/", "evil.net is not in --domains"},
		{"sub", []string{"*.example.com"}, "https://a.b.example.com/", ""},
		{"sub apex", []string{"*.example.com"}, "https://example.com/", ""},
		{"sub not lookalike", []string{"*.example.com"}, "https://badexample.com/", "badexample.com is not in --domains (*.example.com)"},
		{"scheme", []string{"https://example.com"}, "https://example.com/", ""},
		{"scheme other", []string{"https://example.com"}, "http://example.com/", "http://example.com is not in --domains (https://example.com)"},
		{"scheme trailing slash", []string{"https://example.com/"}, "https://example.com/x", ""},
		{"port", []string{"127.0.0.1:8080"}, "http://127.0.0.1:8080/login", ""},
		{"port other", []string{"127.0.0.1:8080"}, "http://127.0.0.2:8080/", "127.0.0.2:8080 is not in --domains (127.0.0.1:8080)"},
		{"port other port", []string{"127.0.0.1:8080"}, "http://127.0.0.1:9090/", "127.0.0.1:9090 is not in --domains"},
		{"default port", []string{"example.com:443"}, "https://example.com/", ""},
		{"default port http", []string{"example.com:443"}, "http://example.com/", "is not in --domains"},
		{"ipv6", []string{"[::1]:8080"}, "http://[::1]:8080/", ""},
		{"ipv6 other", []string{"[::1]"}, "http://[::2]/", "[::2] is not in --domains"},
		{"idn", []string{"bücher.example"}, "https://xn--bcher-kva.example/", ""},
		{"star", []string{"*"}, "https://anything.test/", ""},
		{"deny only", []string{"!evil.com"}, "https://example.com/", ""},
		{"deny only refuses", []string{"!evil.com"}, "https://evil.com/", "evil.com is refused by --domains (!evil.com)"},
		{"deny wins", []string{"*.example.com", "!ads.example.com"}, "https://ads.example.com/", "ads.example.com is refused by --domains (!ads.example.com)"},
		{"deny wins over star", []string{"*", "!evil.com"}, "https://evil.com/", "refused by --domains"},
		{"deny sub", []string{"!*.evil.com"}, "https://x.evil.com/", "refused by --domains"},
		{"about:blank", []string{"example.com"}, "about:blank", ""},
		{"about:srcdoc", []string{"example.com"}, "about:srcdoc", ""},
		{"about:blank deny-all", []string{"!*"}, "about:blank", ""},
		{"about other", []string{"example.com"}, "about:config", "about: URLs are not in --domains"},
		{"data", []string{"example.com"}, "data:text/html,hi", "data: URLs are not in --domains (example.com)"},
		{"javascript", []string{"example.com"}, "javascript:alert(1)", "javascript: URLs are not in --domains"},
		{"file", []string{"example.com"}, "file:///etc/passwd", "file: URLs are not in --domains"},
		{"chrome", []string{"example.com"}, "chrome://settings", "chrome: URLs are not in --domains"},
		{"error page", []string{"example.com"}, "chrome-error://chromewebdata/", "chrome-error: URLs are not in --domains"},
		{"data deny only", []string{"!evil.com"}, "data:text/html,hi", ""},
		{"blob inner", []string{"example.com"}, "blob:https://example.com/0b5c6e2c", ""},
		{"blob inner other", []string{"example.com"}, "blob:https://evil.com/0b5c6e2c", "evil.com is not in --domains"},
		{"blob inner deny", []string{"!evil.com"}, "blob:https://evil.com/0b5c6e2c", "refused by --domains"},
		{"blob opaque", []string{"example.com"}, "blob:null/0b5c6e2c", "blob: URLs are not in --domains"},
		{"no host", []string{"example.com"}, "http:///x", "names no host"},
		{"unreadable", []string{"example.com"}, "http://exa mple.com/%zz", "cannot be read"},
		{"many listed", []string{"a.test", "b.test", "c.test", "d.test", "e.test", "f.test", "g.test"}, "https://x.test/",
			"x.test is not in --domains (a.test, b.test, c.test, d.test, e.test, … 2 more)"},
		{"external refused", []string{"example.com"}, "mailto:a@example.com", "mailto: links open another application, which --domains allows only for the schemes it names (add mailto: to it)"},
		{"external refused deny only", []string{"!evil.com"}, "tel:+15551234", "tel: links open another application"},
		{"external allowed", []string{"example.com", "mailto:"}, "mailto:a@example.com", ""},
		{"external allowed case", []string{"MailTo:"}, "MAILTO:a@example.com", ""},
		{"external app scheme", []string{"x-foo:"}, "x-foo://open/1", ""},
		{"external other scheme", []string{"mailto:"}, "x-foo://open/1", "x-foo: links open another application"},
		{"external denied", []string{"mailto:", "!mailto:"}, "mailto:a@example.com", "mailto: links are refused by --domains (!mailto:)"},
		{"scheme pattern keeps hosts open", []string{"mailto:"}, "https://anything.test/", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseDomains(tc.patterns...)
			if err != nil {
				t.Fatalf("parse %q: %v", tc.patterns, err)
			}
			err = d.Allows(tc.url)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%q refuses %s: %v", tc.patterns, tc.url, err)
			case tc.want != "" && err == nil:
				t.Errorf("%q allows %s", tc.patterns, tc.url)
			case tc.want != "" && (!errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%q on %s: %v, want ErrDenied and %q", tc.patterns, tc.url, err, tc.want)
			}
		})
	}
	var none *DomainList
	if err := none.Allows("https://evil.com/"); err != nil {
		t.Errorf("no list refuses: %v", err)
	}
}

// TestDomainsParse: a pattern that does not parse stops the start (Open
// fails), with one line naming it.
func TestDomainsParse(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"", "an empty pattern"},
		{"!", "an empty pattern"},
		{"example.com/path", "not a path"},
		{"https://example.com/path", "not a path"},
		{"user@example.com", "not a path"},
		{"ftp://example.com", "scheme ftp"},
		{"ex*ample.com", "wildcard"},
		{"*example.com", "wildcard"},
		{"a.*.example.com", "wildcard"},
		{"example.com:0", "port"},
		{"example.com:http", "port"},
		{"example.com:99999", "port"},
		{"::1", "brackets"},
		{"[::1", "closing ]"},
		{"[nothost]:80", "not an IPv6 address"},
		{"exa mple.com", "not a path"},
		{"exa$mple.com", "not a character"},
		{"a..b", "empty name"},
		{"data:", "the browser loads data: URLs itself"},
		{"!javascript:", "the browser loads javascript: URLs itself"},
		{"https:", "names no host: write https://example.com"},
	} {
		_, err := Open(action.Act, Domains("example.com", tc.pattern))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--domains") {
			t.Errorf("pattern %q: %v, want an error with %q", tc.pattern, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("pattern %q: the error is not one line: %q", tc.pattern, err)
		}
	}
	p, err := Open(action.Act, Domains("a.test"), Domains("!b.a.test"))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Domains().String(); got != "a.test,!b.a.test" {
		t.Errorf("two options make %q", got)
	}
	if New(action.Act).Domains() != nil || New(action.Act, Domains()).Domains() != nil {
		t.Error("a policy without patterns has a domain list")
	}
}

// TestDomainsPermit: navigate and tabs new to a refused host are refused
// at every tier before anything loads; below sensitive, javascript: and
// file: stay refused by the tier.
func TestDomainsPermit(t *testing.T) {
	ctx := context.Background()
	for _, tier := range []action.Tier{action.Act, action.Sensitive} {
		p, err := Open(tier, Domains("127.0.0.1"))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			a    action.Action
			want string
		}{
			{action.Action{Kind: action.Navigate, URL: "127.0.0.1:8080/login"}, ""},
			{action.Action{Kind: action.Navigate, URL: "127.0.0.2:8080/login"}, "navigate 127.0.0.2:8080/login: 127.0.0.2:8080 is not in --domains (127.0.0.1)"},
			{action.Action{Kind: action.Tabs, Nav: "new", URL: "https://127.0.0.2/"}, "tabs https://127.0.0.2/: 127.0.0.2 is not in --domains"},
			{action.Action{Kind: action.Tabs, Nav: "new"}, ""},
			{action.Action{Kind: action.Navigate, Nav: "back"}, ""},
			{action.Action{Kind: action.Navigate, URL: "about:blank"}, ""},
			{action.Action{Kind: action.Batch, Steps: []action.Action{{Kind: action.Click, Target: "e1"}, {Kind: action.Navigate, URL: "127.0.0.2"}}},
				"step 2: navigate 127.0.0.2: 127.0.0.2 is not in --domains"},
			{action.Action{Kind: action.Permissions, Grant: []string{"geolocation"}, Origin: "127.0.0.1:8080"}, ""},
			{action.Action{Kind: action.Permissions, Grant: []string{"geolocation"}, Origin: "https://127.0.0.2"},
				"permissions granted to https://127.0.0.2: 127.0.0.2 is not in --domains"},
			{action.Action{Kind: action.Permissions, Grant: []string{"camera"}, Origin: "127.0.0.2:9000"},
				"permissions granted to 127.0.0.2:9000: 127.0.0.2:9000 is not in --domains"},
			{action.Action{Kind: action.Permissions, Deny: []string{"camera"}, Origin: "127.0.0.2:9000"}, ""},
		} {
			_, err := p.Permit(ctx, Request{Action: tc.a})
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s at %s: %v", tc.a, tier, err)
			case tc.want != "" && (!errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%s at %s: %v, want %q", tc.a, tier, err, tc.want)
			}
		}
		for _, u := range []string{"javascript:alert(1)", "file:///etc/passwd"} {
			_, err := p.Permit(ctx, Request{Action: action.Action{Kind: action.Navigate, URL: u}})
			want := "needs the sensitive tier"
			if tier == action.Sensitive {
				want = "URLs are not in --domains"
			}
			if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), want) {
				t.Errorf("navigate %s at %s: %v, want %q", u, tier, err, want)
			}
		}
	}
	// Without an allowing pattern, the tier alone decides on javascript:.
	p, _ := Open(action.Sensitive, Domains("!evil.com"))
	if _, err := p.Permit(ctx, Request{Action: action.Action{Kind: action.Navigate, URL: "javascript:1+1;"}}); err != nil {
		t.Errorf("javascript: at sensitive with a deny-only list: %v", err)
	}
}

// TestDomainsFrames: acting on a node inside a frame (or page) whose
// document comes from a refused origin is refused; reading it is not.
func TestDomainsFrames(t *testing.T) {
	ctx := context.Background()
	inside := &tree.Node{Role: "button", Name: "Inside", Ref: "e3"}
	nested := &tree.Node{Role: "button", Name: "Nested", Ref: "e5"}
	outside := &tree.Node{Role: "button", Name: "Outside", Ref: "e1"}
	srcdoc := &tree.Node{Role: "iframe", Frame: "about:srcdoc", Children: []*tree.Node{nested}}
	frame := &tree.Node{Role: "iframe", Ref: "e2", Frame: "http://127.0.0.2:8080/frame.html", Children: []*tree.Node{inside, srcdoc}}
	page := &tree.Snapshot{
		Header: tree.Header{Kind: "tab", URL: "http://127.0.0.1:8080/page.html"},
		Root:   &tree.Node{Role: tree.RoleDocument, Frame: "http://127.0.0.1:8080/page.html", Children: []*tree.Node{outside, frame}},
	}
	p, err := Open(action.Act, Domains("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	click := action.Action{Kind: action.Click, Target: "e3"}
	if _, err := p.Permit(ctx, Request{Action: click, Target: `button "Inside" e3`, Node: inside, Page: page}); !errors.Is(err, ErrDenied) ||
		!strings.Contains(err.Error(), `click button "Inside" e3: the target is inside a frame from 127.0.0.2:8080/frame.html: 127.0.0.2:8080 is not in --domains (127.0.0.1)`) {
		t.Errorf("click inside the refused frame: %v", err)
	}
	if _, err := p.Permit(ctx, Request{Action: click, Node: nested, Page: page}); !errors.Is(err, ErrDenied) {
		t.Errorf("click in a srcdoc frame inside the refused frame: %v", err)
	}
	if _, err := p.Permit(ctx, Request{Action: click, Node: frame, Page: page}); !errors.Is(err, ErrDenied) {
		t.Errorf("click on the refused frame itself: %v", err)
	}
	if _, err := p.Permit(ctx, Request{Action: click, Node: outside, Page: page}); err != nil {
		t.Errorf("click outside the frame: %v", err)
	}
	drag := action.Action{Kind: action.Drag, Target: "e1", To: "e3"}
	if _, err := p.Permit(ctx, Request{Action: drag, Node: outside, To: inside, Page: page}); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), `drag to button "Inside" e3`) {
		t.Errorf("drag into the refused frame: %v", err)
	}
	press := action.Action{Kind: action.Press, Keys: "Enter"}
	if _, err := p.Permit(ctx, Request{Action: press, Page: page}); err != nil {
		t.Errorf("a key on the page, nothing focused: %v", err)
	}
	inside.States |= tree.Focused
	if _, err := p.Permit(ctx, Request{Action: press, Page: page}); !errors.Is(err, ErrDenied) {
		t.Errorf("a key to the focused element inside the refused frame: %v", err)
	}
	inside.States &^= tree.Focused
	read := action.Action{Kind: action.Extract, Target: "e3"}
	if _, err := p.Permit(ctx, Request{Action: read, Node: inside, Page: page}); err != nil {
		t.Errorf("reading inside the refused frame: %v", err)
	}

	// A page whose own document is refused: an error page for a refused
	// URL (its Frame), or a source that only gives the header's URL.
	errPage := &tree.Snapshot{
		Header: tree.Header{Kind: "tab", URL: "chrome-error://chromewebdata/"},
		Root:   &tree.Node{Role: tree.RoleDocument, Frame: "http://127.0.0.2:8080/x", Children: []*tree.Node{outside}},
	}
	if _, err := p.Permit(ctx, Request{Action: click, Node: outside, Page: errPage}); !errors.Is(err, ErrDenied) ||
		!strings.Contains(err.Error(), "inside a page from 127.0.0.2:8080/x") {
		t.Errorf("click on a refused page: %v", err)
	}
	if _, err := p.Permit(ctx, Request{Action: action.Action{Kind: action.Scroll, Direction: "down"}, Page: errPage}); !errors.Is(err, ErrDenied) {
		t.Errorf("scrolling a refused page: %v", err)
	}
	if _, err := p.Permit(ctx, Request{Action: action.Action{Kind: action.Navigate, Nav: "back"}, Page: errPage}); err != nil {
		t.Errorf("going back from a refused page: %v", err)
	}
	bare := &tree.Snapshot{Header: tree.Header{Kind: "tab", URL: "http://127.0.0.2:8080/"}, Root: &tree.Node{Role: tree.RoleDocument, Children: []*tree.Node{outside}}}
	if _, err := p.Permit(ctx, Request{Action: click, Node: outside, Page: bare}); !errors.Is(err, ErrDenied) {
		t.Errorf("click on a page the header says is refused: %v", err)
	}

	// A desktop tree with a page grafted in: the page's header counts.
	web := &tree.Node{Role: tree.RoleDocument, Page: &tree.Header{Kind: "tab", URL: "http://127.0.0.2:8080/"}, Children: []*tree.Node{inside}}
	app := &tree.Node{Role: "button", Name: "OK"}
	desk := &tree.Snapshot{Header: tree.Header{Kind: "desktop"}, Root: &tree.Node{Role: "desktop", Children: []*tree.Node{app, web}}}
	if _, err := p.Permit(ctx, Request{Action: click, Node: inside, Page: desk}); !errors.Is(err, ErrDenied) {
		t.Errorf("click in a refused page on the desktop: %v", err)
	}
	if _, err := p.Permit(ctx, Request{Action: click, Node: app, Page: desk}); err != nil {
		t.Errorf("click on a desktop app: %v", err)
	}
}

// TestDomainsExternalSchemes: under --domains, navigate to an external
// scheme (mailto:, tel:) is refused at every tier unless a scheme pattern
// allows it; the list written back keeps the scheme patterns.
func TestDomainsExternalSchemes(t *testing.T) {
	ctx := context.Background()
	for _, tier := range []action.Tier{action.Act, action.Sensitive} {
		p, err := Open(tier, Domains("127.0.0.1", "mailto:", "!x-spam:"))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ url, want string }{
			{"mailto:a@example.com", ""},
			{"tel:+15551234", "navigate tel:+15551234: tel: links open another application, which --domains allows only for the schemes it names (add tel: to it)"},
			{"x-spam:now", "x-spam: links are refused by --domains (!x-spam:)"},
		} {
			_, err := p.Permit(ctx, Request{Action: action.Action{Kind: action.Navigate, URL: tc.url}})
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("navigate %s at %s: %v", tc.url, tier, err)
			case tc.want != "" && (!errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("navigate %s at %s: %v, want %q", tc.url, tier, err, tc.want)
			}
		}
		if got := p.Domains().String(); got != "127.0.0.1,mailto:,!x-spam:" {
			t.Errorf("the list reads %q", got)
		}
		if got := p.Domains().AppSchemes(); len(got) != 1 || got[0] != "mailto" {
			t.Errorf("the schemes allowed are %q", got)
		}
	}
}
