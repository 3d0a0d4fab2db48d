package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/tokens"
)

// TestToolsListSize keeps the whole tools/list under 2,200 o200k tokens:
// agents pay for it on every turn.
func TestToolsListSize(t *testing.T) {
	for _, c := range []struct {
		desktop bool
		allow   action.Tier
		tools   int
	}{{false, 0, 22}, {true, 0, 24}, {false, action.Sensitive, 23}, {true, action.Sensitive, 25}} {
		toolsListSize(t, c.desktop, c.allow, c.tools)
	}
}

// TestToolsListTier: tools/list offers only what the session's tier
// allows: at observe the reading tools (and tabs, batch for reading), at
// act no evaluate.
func TestToolsListTier(t *testing.T) {
	names := func(opt Options) []string {
		res, err := connect(t, newServer(t, opt)).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	observe := names(Options{Session: canopy.Config{Allow: action.Observe}})
	slices.Sort(observe)
	// shell is listed at every tier: its commands that act are refused
	// one by one.
	if want := []string{"batch", "extract", "find", "screenshot", "shell", "snapshot", "tabs", "wait"}; !slices.Equal(observe, want) {
		t.Errorf("tools at observe: %v, want %v", observe, want)
	}
	if act := names(Options{}); slices.Contains(act, "evaluate") || !slices.Contains(act, "click") {
		t.Errorf("tools at act: %v", act)
	}
	// Attached to a browser canopy did not start: observe by default.
	if attached := names(Options{Session: canopy.Config{Browser: browser.Options{CDP: "http://127.0.0.1:1"}}}); slices.Contains(attached, "click") {
		t.Errorf("tools attached with --cdp: %v", attached)
	}
	// An unlisted tool called anyway gets the policy's refusal.
	cs := connect(t, newServer(t, Options{Session: canopy.Config{Allow: action.Observe}}))
	if text, isErr := call(t, cs, "click", map[string]any{"target": "e1"}); !isErr || !strings.Contains(text, "needs the act tier; this session allows observe") {
		t.Errorf("click at observe: (%q, %v)", text, isErr)
	}
}

// toolsListSize checks one server's tools/list: with the desktop it adds
// open_app and activate, and stays in budget.
func toolsListSize(t *testing.T, desktop bool, allow action.Tier, want int) {
	cs := connect(t, newServer(t, Options{Session: canopy.Config{Desktop: desktop, Allow: allow}}))
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
	if n > 2200 {
		t.Errorf("tools/list is %d tokens, over the 2,200 budget", n)
	}
	if len(res.Tools) != want {
		t.Errorf("%d tools, want %d", len(res.Tools), want)
	}
	if testing.Verbose() {
		out, _ := json.MarshalIndent(res.Tools, "", " ")
		t.Log(string(out))
	}
}
