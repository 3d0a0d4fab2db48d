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
	cs := connect(t, newServer(t, Options{}))
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
	if len(res.Tools) != 19 {
		t.Errorf("%d tools, want 19", len(res.Tools))
	}
	if testing.Verbose() {
		out, _ := json.MarshalIndent(res.Tools, "", " ")
		t.Log(string(out))
	}
}
