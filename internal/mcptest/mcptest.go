// Package mcptest connects an MCP client (the official Go SDK's) to a
// server in the same process, for tests that drive canopy the way an agent
// would.
package mcptest

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect serves srv on in-memory transports and returns a client session;
// both end with the test.
func Connect(t testing.TB, srv *sdk.Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
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

// Call calls a tool and returns its text content and whether it is an
// error result. A protocol error, a result with _meta or with
// structuredContent (canopy's replies are the text alone) fails the test.
func Call(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	// Longer than the server's own cap on a call (mcp.DefaultCallTimeout,
	// 2 minutes): a slow call ends in the server's worded error, which a
	// test can read, never in the client giving up.
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
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
