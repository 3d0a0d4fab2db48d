package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPIsolation: over HTTP every MCP session is its own world. Two
// clients do not see each other's cookies, tabs or refs; a third beyond
// --max-sessions is turned away with one line; a client that leaves
// closes its browser, which makes room; an idle session is closed.
func TestHTTPIsolation(t *testing.T) {
	s := newServer(t, Options{MaxSessions: 2, IdleTimeout: 4 * time.Second})
	srv := httptest.NewServer(s.Handler("tok"))
	defer srv.Close()
	ctx := context.Background()
	open := func() (*sdk.ClientSession, error) {
		c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, nil)
		return c.Connect(ctx, &sdk.StreamableClientTransport{
			Endpoint: srv.URL + Path, HTTPClient: &http.Client{Transport: bearer{token: "tok"}},
		}, nil)
	}
	a, err := open()
	if err != nil {
		t.Fatal(err)
	}
	b, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	// Cookies: A's cookie is not sent by B's browser.
	if text, isErr := call(t, a, "navigate", map[string]any{"url": testSite.URL("/cookie?set=alpha")}); isErr {
		t.Fatal(text)
	}
	if text, _ := call(t, a, "navigate", map[string]any{"url": testSite.URL("/cookie")}); !strings.Contains(text, "cookie sent: alpha") {
		t.Fatalf("A does not keep its own cookie:\n%s", text)
	}
	if text, _ := call(t, b, "navigate", map[string]any{"url": testSite.URL("/cookie")}); !strings.Contains(text, "cookie sent: (none)") {
		t.Errorf("B sees A's cookie:\n%s", text)
	}
	// Tabs: A's new tab is not in B's list.
	if text, isErr := call(t, a, "tabs", map[string]any{"action": "new", "url": testSite.URL("/login.html")}); isErr {
		t.Fatal(text)
	}
	if text, _ := call(t, b, "tabs", map[string]any{"action": "list"}); strings.Contains(text, "login") || strings.Count(text, "\n") != 1 {
		t.Errorf("B's tabs show A's:\n%s", text)
	}
	// Refs: A's ref to its Email box means nothing in B's session.
	text, _ := call(t, a, "find", map[string]any{"target": "role:textbox name:Email"})
	ref := regexp.MustCompile(`\be[0-9]+\b`).FindString(text)
	if ref == "" {
		t.Fatalf("find in A: %q", text)
	}
	if text, isErr := call(t, b, "type", map[string]any{"target": ref, "text": "x"}); !isErr {
		t.Errorf("B typed into A's %s: %q", ref, text)
	}
	if got := s.clients.live(); got != 2 {
		t.Errorf("%d sessions with a browser, want 2", got)
	}

	// A third client is turned away while two are open.
	if _, err := open(); err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("third session: %v, want a 503 refusal", err)
	}
	// A leaves: its browser closes, and a new client gets in.
	a.Close()
	waitFor(t, "A's session to end", func() bool { return s.clients.live() == 1 })
	c, err := open()
	if err != nil {
		t.Fatalf("a client after A left: %v", err)
	}
	defer c.Close()
	// Idle sessions are closed: C and B make no more requests.
	waitFor(t, "the idle sessions to close", func() bool { return s.sessions() == 0 && s.clients.live() == 0 })
}

// waitFor polls cond until it holds, failing after 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}
