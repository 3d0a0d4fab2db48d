package mcp

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy/internal/goldentest"
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

// connect starts s on in-memory transports and returns a client session.
func connect(t *testing.T, s *Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text content and whether it is an
// error result. A protocol error fails the test.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	if len(res.Meta) > 0 {
		t.Errorf("%s: result carries _meta %v; replies must be the text alone", tool, res.Meta)
	}
	if res.StructuredContent != nil {
		t.Errorf("%s: has structuredContent; replies must be text only", tool)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
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
