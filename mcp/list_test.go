package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/canopy-dev/canopy/tokens"
)

// TestToolsListSize keeps the whole tools/list under 2,000 o200k tokens:
// agents pay for it on every turn.
func TestToolsListSize(t *testing.T) {
	for _, c := range []struct {
		desktop bool
		tools   int
	}{{false, 19}, {true, 21}} {
		toolsListSize(t, c.desktop, c.tools)
	}
}

// toolsListSize checks one server's tools/list: with the desktop it adds
// open_app and activate, and stays in budget.
func toolsListSize(t *testing.T, desktop bool, want int) {
	cs := connect(t, newServer(t, Options{Desktop: desktop}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokens.New()
	if err != nil {
		t.Fatal(err)
	}
	n := tok.Count(string(data))
	t.Logf("tools/list: %d tools, %d bytes, %d o200k tokens", len(res.Tools), len(data), n)
	if n > 2000 {
		t.Errorf("tools/list is %d tokens, over the 2,000 budget", n)
	}
	if len(res.Tools) != want {
		t.Errorf("%d tools, want %d", len(res.Tools), want)
	}
	if testing.Verbose() {
		out, _ := json.MarshalIndent(res.Tools, "", " ")
		t.Log(string(out))
	}
}
