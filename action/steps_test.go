package action

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSteps(t *testing.T) {
	tests := []struct {
		src  string
		want []Action
	}{
		{`click role:button name:"Sign in"`, []Action{{Kind: Click, Target: `role:button name:"Sign in"`}}},
		{`type role:textbox name:Email "a@b.c"; type e14 "p;w" clear submit`, []Action{
			{Kind: Type, Target: "role:textbox name:Email", Text: "a@b.c"},
			{Kind: Type, Target: "e14", Text: "p;w", Clear: true, Submit: true},
		}},
		{"select role:combobox name:Region \"Asia\"\npress ctrl+s", []Action{
			{Kind: Select, Target: "role:combobox name:Region", Text: "Asia"},
			{Kind: Press, Keys: "ctrl+s"},
		}},
		{`press role:textbox name:Q "Enter"`, []Action{{Kind: Press, Target: "role:textbox name:Q", Keys: "Enter"}}},
		{`press e3 Enter`, []Action{{Kind: Press, Target: "e3", Keys: "Enter"}}},
		{`type role:textbox name:Password credential:github; type e4 credential:my-pw clear submit`, []Action{
			{Kind: Type, Target: "role:textbox name:Password", Credential: "github"},
			{Kind: Type, Target: "e4", Credential: "my-pw", Clear: true, Submit: true},
		}},
		{`navigate "http://127.0.0.1:8080/a;b"; back; reload`, []Action{
			{Kind: Navigate, URL: "http://127.0.0.1:8080/a;b"},
			{Kind: Navigate, Nav: "back"},
			{Kind: Navigate, Nav: "reload"},
		}},
		{`navigate http://x.test/`, []Action{{Kind: Navigate, URL: "http://x.test/"}}},
		{`scroll down 600; scroll e5; scroll role:list up`, []Action{
			{Kind: Scroll, Direction: "down", Amount: 600},
			{Kind: Scroll, Target: "e5"},
			{Kind: Scroll, Target: "role:list", Direction: "up"},
		}},
		{`extract e12 table; extract`, []Action{{Kind: Extract, Target: "e12", Format: "table"}, {Kind: Extract, Format: "markdown"}}},
		{`extract role:main text from 200000; extract from 5`, []Action{{Kind: Extract, Target: "role:main", Format: "text", From: 200000}, {Kind: Extract, Format: "markdown", From: 5}}},
		{`wait role:dialog hidden; wait text "Saved"; wait url "*/dashboard"; wait quiet`, []Action{
			{Kind: Wait, Target: "role:dialog", State: "hidden"},
			{Kind: Wait, Text: "Saved"},
			{Kind: Wait, URL: "*/dashboard"},
			{Kind: Wait, Quiet: true},
		}},
		{`tabs new "http://a.test/"; tabs switch 2; tabs close`, []Action{
			{Kind: Tabs, Nav: "new", URL: "http://a.test/"},
			{Kind: Tabs, Nav: "switch", Tab: 2},
			{Kind: Tabs, Nav: "close"},
		}},
		{`dialog accept "yes"; dialog dismiss`, []Action{{Kind: Dialog, Nav: "accept", Text: "yes"}, {Kind: Dialog, Nav: "dismiss"}}},
		{`click role:link name:/sign (in|up)/i; check e4`, []Action{{Kind: Click, Target: "role:link name:/sign (in|up)/i"}, {Kind: Check, Target: "e4"}}},
		{`upload role:button name:File "a.txt" "b.txt"`, []Action{{Kind: Upload, Target: "role:button name:File", Paths: []string{"a.txt", "b.txt"}}}},
		{`drag e3 "role:listitem name:Done"`, []Action{{Kind: Drag, Target: "e3", To: "role:listitem name:Done"}}},
		{`click role:link name:/a;b/ ; type e2 "say \"hi\"; bye"`, []Action{{Kind: Click, Target: "role:link name:/a;b/"}, {Kind: Type, Target: "e2", Text: `say "hi"; bye`}}},
		{`clipboard "a; b"; clipboard`, []Action{{Kind: Clipboard, Text: "a; b"}, {Kind: Clipboard}}},
		{"# a comment\nevaluate 'document.title'", []Action{{Kind: Evaluate, Text: "document.title"}}},
	}
	for _, tt := range tests {
		got, err := ParseSteps(tt.src)
		if err != nil {
			t.Errorf("ParseSteps(%q): %v", tt.src, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseSteps(%q) (-want +got):\n%s", tt.src, d)
		}
	}
}

func TestParseStepsErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{``, "no steps"},
		{`jump e1`, `step 1 ("jump e1"), column 1: unknown action "jump"`},
		{`click`, "click needs a target"},
		{`click e1; type e2`, `step 2 ("type e2"), column 18: type needs the text in quotes`},
		{`type e2 "abc`, "column 9: unterminated quoted string"},
		{`type e2 "abc" fast`, `column 15: type takes the flags clear and submit after the text, not "fast"`},
		{`navigate e5 "http://x"`, `column 10: navigate takes no selector`},
		{`tabs switch two`, `column 13: tabs switch takes a tab number`},
		{`extract text 5`, `column 14: extract takes a number only after from`},
		{`click role:button name:"Save`, `unterminated " in`},
	}
	for _, tt := range tests {
		_, err := ParseSteps(tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSteps(%q) = %v, want an error containing %q", tt.src, err, tt.want)
		}
	}
}

func TestTier(t *testing.T) {
	steps := []Action{{Kind: Snapshot}, {Kind: Click, Target: "e1"}}
	if got := (Action{Kind: Batch, Steps: steps}).Tier(); got != Act {
		t.Errorf("batch with a click needs %v, want act", got)
	}
	if got := (Action{Kind: Evaluate, Text: "1"}).Tier(); got != Sensitive {
		t.Errorf("evaluate needs %v, want sensitive", got)
	}
	if got := (Action{Kind: Tabs, Nav: "list"}).Tier(); got != Observe {
		t.Errorf("tabs list needs %v, want observe", got)
	}
	// The least tier a kind is offered at: below the table's when
	// arguments lower it, never raised by the empty call's needs.
	for k, want := range map[Kind]Tier{Tabs: Observe, Clipboard: Act, Evaluate: Sensitive, Navigate: Act, Batch: Observe, Kind("nope"): Act} {
		if got := LeastTier(k); got != want {
			t.Errorf("LeastTier(%s) = %v, want %v", k, got, want)
		}
	}
}

// TestURLTier: what a navigation needs, decided on the URL the browser will
// load.
func TestURLTier(t *testing.T) {
	for _, tc := range []struct {
		url, norm, scheme string
		tier              Tier
	}{
		{"127.0.0.1:8080/login", "http://127.0.0.1:8080/login", "http", Act},
		{"localhost:8080", "http://localhost:8080", "http", Act},
		{"example.com/a?b=c:d", "http://example.com/a?b=c:d", "http", Act},
		{"https://example.com/", "https://example.com/", "https", Act},
		{"  HTTP://Example.com ", "HTTP://Example.com", "http", Act},
		{"about:blank", "about:blank", "about", Act},
		{"about:config", "about:config", "about", Sensitive},
		{"javascript:alert(document.cookie)//://", "javascript:alert(document.cookie)//://", "javascript", Sensitive},
		{"JavaScript:void(0)", "JavaScript:void(0)", "javascript", Sensitive},
		{"data:text/html,<script>1</script>", "data:text/html,<script>1</script>", "data", Sensitive},
		{"file:///etc/passwd", "file:///etc/passwd", "file", Sensitive},
		{"view-source:http://example.com", "view-source:http://example.com", "view-source", Sensitive},
		{"chrome://version", "chrome://version", "chrome", Sensitive},
		{"chrome-untrusted://x", "chrome-untrusted://x", "chrome-untrusted", Sensitive},
		// External schemes go to the desktop's handler, as a click on such
		// a link does.
		{"mailto:a@b.c", "mailto:a@b.c", "mailto", Act},
		{"tel:+4930123", "tel:+4930123", "tel", Act},
		{"MyApp://open/1", "MyApp://open/1", "myapp", Act},
		{"javascript:1", "http://javascript:1", "http", Act}, // a host and port, loaded as such
	} {
		if got := NormalizeURL(tc.url); got != tc.norm {
			t.Errorf("NormalizeURL(%q) = %q, want %q", tc.url, got, tc.norm)
		}
		if got := Scheme(NormalizeURL(tc.url)); got != tc.scheme {
			t.Errorf("Scheme(%q) = %q, want %q", tc.norm, got, tc.scheme)
		}
		if got := URLTier(tc.url); got != tc.tier {
			t.Errorf("URLTier(%q) = %v, want %v", tc.url, got, tc.tier)
		}
		nav := Action{Kind: Navigate, URL: tc.url}
		tab := Action{Kind: Tabs, Nav: "new", URL: tc.url}
		batch := Action{Kind: Batch, Steps: []Action{{Kind: Click, Target: "e1"}, nav}}
		for _, a := range []Action{nav, tab, batch} {
			if got := a.Tier(); got != tc.tier {
				t.Errorf("%s needs %v, want %v", a, got, tc.tier)
			}
		}
	}
	if got := (Action{Kind: Tabs, Nav: "new"}).Tier(); got != Act {
		t.Errorf("tabs new (blank) needs %v, want act", got)
	}
	if got := (Action{Kind: Navigate, Nav: "back"}).Tier(); got != Act {
		t.Errorf("navigate back needs %v, want act", got)
	}
}
