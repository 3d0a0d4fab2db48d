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

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/chromium"
)

// TestHTTPIsolation: over HTTP every MCP session is its own world. Two
// clients do not see each other's cookies, tabs or refs; a client that
// leaves closes its browser; an idle session is closed. (Sessions beyond
// --max-sessions: sessions_test.go.)
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

// TestHTTPIsolationAttached: over HTTP with --cdp, every session opens a
// browser context of its own in the browser attached to: the clients do
// not share cookies or tabs, do not see the user's tabs, and leave them
// alone when they go.
func TestHTTPIsolationAttached(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := chromium.Start(ctx, chromium.Options{URL: testSite.URL("/todo.html")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := newServer(t, Options{Session: canopy.Config{Browser: browser.Options{CDP: p.URL}, Allow: action.Act}})
	srv := httptest.NewServer(s.Handler("tok"))
	defer srv.Close()
	open := func() *sdk.ClientSession {
		c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, nil)
		cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{
			Endpoint: srv.URL + Path, HTTPClient: &http.Client{Transport: bearer{token: "tok"}},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	a, b := open(), open()
	defer b.Close()
	call(t, a, "navigate", map[string]any{"url": testSite.URL("/cookie?set=alpha")})
	if text, _ := call(t, a, "navigate", map[string]any{"url": testSite.URL("/cookie")}); !strings.Contains(text, "cookie sent: alpha") {
		t.Fatalf("A does not keep its own cookie:\n%s", text)
	}
	if text, _ := call(t, b, "navigate", map[string]any{"url": testSite.URL("/cookie")}); !strings.Contains(text, "cookie sent: (none)") {
		t.Errorf("B sees A's cookie:\n%s", text)
	}
	for name, cs := range map[string]*sdk.ClientSession{"A": a, "B": b} {
		if text, _ := call(t, cs, "tabs", map[string]any{"action": "list"}); strings.Contains(text, "todo") || strings.Count(text, "\n") != 1 {
			t.Errorf("%s's tabs show others':\n%s", name, text)
		}
	}
	a.Close()
	waitFor(t, "A's session to end", func() bool { return s.clients.live() == 1 })
	// The user's tab is still there, and A's is gone.
	waitFor(t, "A's tab to close", func() bool {
		pages, err := p.Pages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		todo, cookie := 0, 0
		for _, u := range pages {
			if strings.Contains(u, "/todo.html") {
				todo++
			}
			if strings.Contains(u, "/cookie") {
				cookie++
			}
		}
		return todo == 1 && cookie == 1 // the user's, and B's
	})
}
