//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/canopy-dev/canopy/internal/chromium"
)

// env is what a peer's command line is built from.
type env struct {
	dir    string // install folder (bench/peers/install.sh)
	canopy string // canopy binary
	work   string // a fresh scratch folder for this server
	cdp    *chromium.Process
}

// peer describes how to drive one MCP server: how to start it, its tool
// names and arguments, and how to find an element's ref in its snapshot.
type peer struct {
	name     string
	command  func(e env) (*exec.Cmd, error)
	navigate func(url string) (string, map[string]any)
	snapshot func() (string, map[string]any)
	// full is the snapshot without a budget, nil when the default
	// snapshot already has none.
	full func() (string, map[string]any)
	// delta is the server's read of what changed since its last
	// snapshot, nil when it has none (the speed section then reads a
	// snapshot after an action whose reply does not show the change);
	// deltaBase is the snapshot that sets the baseline for it.
	delta, deltaBase func() (string, map[string]any)
	// act maps a step onto the server's tools: one call, or two when the
	// server types and presses Enter with separate tools. ref is the ref
	// from the server's snapshot (for canopy: a selector).
	act func(s step, ref string) []toolCall
	// refRe finds a ref on a snapshot line (its first group).
	refRe *regexp.Regexp
	// prepare runs once after the server started (may be nil); it returns
	// arguments to add to every call.
	prepare func(ctx context.Context, s *server) (map[string]any, error)
	// cleanup runs after the server is closed (may be nil).
	cleanup func(e env)
}

var peers = []peer{
	{
		name: "canopy",
		command: func(e env) (*exec.Cmd, error) {
			// Attached to a browser it did not start, canopy defaults to
			// observe; the click needs act.
			return cmdIn(e, e.canopy, "mcp", "--cdp", e.cdp.URL, "--allow", "act")
		},
		navigate: func(url string) (string, map[string]any) { return "navigate", map[string]any{"url": url} },
		snapshot: func() (string, map[string]any) { return "snapshot", map[string]any{} },
		full:     func() (string, map[string]any) { return "snapshot", map[string]any{"full": true} },
		act: func(s step, ref string) []toolCall {
			switch s.do {
			case "type":
				return []toolCall{{"type", map[string]any{"target": ref, "text": s.text, "clear": true, "submit": s.submit}}}
			case "select":
				return []toolCall{{"select", map[string]any{"target": ref, "option": s.text}}}
			}
			return []toolCall{{"click", map[string]any{"target": ref}}}
		},
		// checkbox "Remember me" e5 checked
		refRe: regexp.MustCompile(`\s(e\d+)\b`),
	},
	{
		name: "playwright",
		command: func(e env) (*exec.Cmd, error) {
			return cmdIn(e, filepath.Join(e.dir, "node_modules/.bin/playwright-mcp"),
				"--cdp-endpoint", e.cdp.URL, "--output-dir", filepath.Join(e.work, "out"))
		},
		navigate: func(url string) (string, map[string]any) {
			return "browser_navigate", map[string]any{"url": url}
		},
		snapshot: func() (string, map[string]any) { return "browser_snapshot", map[string]any{} },
		act: func(s step, ref string) []toolCall {
			el := s.target.String()
			switch s.do {
			case "type":
				return []toolCall{{"browser_type", map[string]any{"element": el, "target": ref, "text": s.text, "submit": s.submit}}}
			case "select":
				return []toolCall{{"browser_select_option", map[string]any{"element": el, "target": ref, "values": []string{s.text}}}}
			}
			return []toolCall{{"browser_click", map[string]any{"element": el, "target": ref}}}
		},
		// - checkbox "Remember me" [ref=e12]
		refRe: regexp.MustCompile(`\[ref=([^\]\s]+)\]`),
	},
	{
		name: "chrome-devtools",
		command: func(e env) (*exec.Cmd, error) {
			return cmdIn(e, filepath.Join(e.dir, "node_modules/.bin/chrome-devtools-mcp"),
				"--browserUrl", e.cdp.URL, "--no-usage-statistics", "--no-performance-crux")
		},
		navigate: func(url string) (string, map[string]any) {
			return "navigate_page", map[string]any{"type": "url", "url": url}
		},
		snapshot: func() (string, map[string]any) { return "take_snapshot", map[string]any{} },
		act: func(s step, ref string) []toolCall {
			switch s.do {
			case "type":
				c := []toolCall{{"fill", map[string]any{"uid": ref, "value": s.text}}}
				if s.submit {
					c = append(c, toolCall{"press_key", map[string]any{"key": "Enter"}})
				}
				return c
			case "select": // fill chooses an option of a select
				return []toolCall{{"fill", map[string]any{"uid": ref, "value": s.text}}}
			}
			return []toolCall{{"click", map[string]any{"uid": ref}}}
		},
		// uid=1_23 checkbox "Remember me"
		refRe: regexp.MustCompile(`uid=(\S+)`),
		// Page-scoped tools need a pageId (--page-id-routing is on by
		// default): take the selected page's from list_pages, as an agent
		// would.
		prepare: func(ctx context.Context, s *server) (map[string]any, error) {
			r, err := s.call(ctx, "list_pages", map[string]any{})
			if err != nil {
				return nil, err
			}
			m := regexp.MustCompile(`(?m)^\s*(\d+):.*\[selected\]`).FindStringSubmatch(r.text)
			if m == nil {
				return nil, fmt.Errorf("no selected page in list_pages: %s", oneLine(r.text, 80))
			}
			id, _ := strconv.Atoi(m[1])
			return map[string]any{"pageId": id}, nil
		},
	},
	{
		name: "agent-browser",
		command: func(e env) (*exec.Cmd, error) {
			// The package ships native binaries; its JS wrapper needs Node 24.
			arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
			bin := filepath.Join(e.dir, "node_modules/agent-browser/bin", "agent-browser-linux-"+arch)
			cmd, err := cmdIn(e, bin, "mcp")
			if err != nil {
				return nil, err
			}
			// The tools talk to a background daemon; give it a socket folder
			// of its own (so cleanup can find and end it), the browser to
			// attach to, and no update check.
			cmd.Env = append(cmd.Env,
				"AGENT_BROWSER_SOCKET_DIR="+filepath.Join(e.work, "sock"),
				"AGENT_BROWSER_CDP="+e.cdp.URL,
				"AGENT_BROWSER_NO_VERSION_CHECK=1",
				"AGENT_BROWSER_IDLE_TIMEOUT_MS=120000",
			)
			return cmd, nil
		},
		navigate: func(url string) (string, map[string]any) {
			return "agent_browser_open", map[string]any{"url": url}
		},
		snapshot: func() (string, map[string]any) { return "agent_browser_snapshot", map[string]any{} },
		// Its default snapshot is interactive elements only.
		full: func() (string, map[string]any) {
			return "agent_browser_snapshot", map[string]any{"interactive": false}
		},
		// Its snapshot's delta mode answers with what changed since the
		// last one (its "diff snapshot" tool is not in the default, core,
		// tools). With interactive: false, so that text changes show.
		delta: func() (string, map[string]any) {
			return "agent_browser_snapshot", map[string]any{"delta": true, "interactive": false}
		},
		deltaBase: func() (string, map[string]any) {
			return "agent_browser_snapshot", map[string]any{"delta": true, "full": true, "interactive": false}
		},
		act: func(s step, ref string) []toolCall {
			sel := "@" + ref
			switch s.do {
			case "type":
				c := []toolCall{{"agent_browser_fill", map[string]any{"selector": sel, "text": s.text}}}
				if s.submit {
					c = append(c, toolCall{"agent_browser_press", map[string]any{"key": "Enter"}})
				}
				return c
			case "select":
				return []toolCall{{"agent_browser_select", map[string]any{"selector": sel, "values": []string{s.text}}}}
			}
			return []toolCall{{"agent_browser_click", map[string]any{"selector": sel}}}
		},
		// - checkbox "Remember me" [ref=e5]
		refRe: regexp.MustCompile(`\bref=(e\d+)\b`),
		cleanup: func(e env) {
			// The daemon outlives the MCP server; end the one this run
			// started, found by its pid file.
			files, _ := filepath.Glob(filepath.Join(e.work, "sock", "*.pid"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					continue
				}
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
					syscall.Kill(pid, syscall.SIGTERM)
				}
			}
		},
	},
}

// toolCall is one tool call: the tool's name and arguments.
type toolCall struct {
	name string
	args map[string]any
}

// cmdIn builds a command that runs in e.work with the caller's environment.
func cmdIn(e env, bin string, args ...string) (*exec.Cmd, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%s is missing (bench/peers/install.sh %s installs the peers)", bin, e.dir)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = e.work
	cmd.Env = append(os.Environ(), "CI=1")
	return cmd, nil
}
