package mcp

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy/internal/goldentest"
	"github.com/canopy-dev/canopy/internal/mcptest"
	"github.com/canopy-dev/canopy/internal/site"
)

// testSite serves the test pages for the whole package run.
var testSite *site.Site

func TestMain(m *testing.M) {
	flag.Parse()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := site.Serve(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve test site:", err)
		os.Exit(1)
	}
	testSite = s
	code := m.Run()
	s.Close()
	cancel()
	os.Exit(code)
}

// newServer makes a server that launches its own headless Chromium on the
// first call; the browser stops when the test ends.
func newServer(t *testing.T, opt Options) *Server {
	t.Helper()
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// onlyBackend returns the backend of the server's one MCP session, or an
// empty one when no session made a call yet.
func onlyBackend(t *testing.T, s *Server) *backend {
	t.Helper()
	s.clients.mu.Lock()
	defer s.clients.mu.Unlock()
	if len(s.clients.by) > 1 {
		t.Fatalf("%d sessions, want one", len(s.clients.by))
	}
	for _, k := range s.clients.by {
		return k
	}
	return &backend{}
}

// connect starts s on in-memory transports and returns a client session.
func connect(t *testing.T, s *Server) *sdk.ClientSession { return mcptest.Connect(t, s.SDK()) }

// call calls a tool and returns its text content and whether it is an
// error result. A protocol error fails the test.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	return mcptest.Call(t, cs, tool, args)
}

// golden compares got with testdata/NAME, after replacing the test site's
// origins with SITE and XSITE; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	for _, o := range []struct{ origin, name string }{{testSite.URL(""), "SITE"}, {testSite.CrossURL(""), "XSITE"}} {
		got = strings.ReplaceAll(got, o.origin, o.name)
		got = strings.ReplaceAll(got, strings.TrimPrefix(o.origin, "http://"), o.name)
	}
	path := filepath.Join("testdata", name)
	goldentest.Check(t, path, got)
}
