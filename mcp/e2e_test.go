package mcp

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// nodeModules returns the node_modules folder holding the official
// TypeScript MCP SDK, installed outside the repository by scripts/deps.sh
// ($CANOPY_NODE_DIR, default ~/.cache/canopy-node). The end-to-end tests
// fail, never skip, without it: CI installs it.
func nodeModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CANOPY_NODE_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "canopy-node")
	}
	mods := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the TypeScript MCP SDK is not installed in %s (run: CANOPY_WITH_TEST_DEPS=1 bash scripts/deps.sh): %v", dir, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed (apt-get install nodejs)")
	}
	return mods
}

// buildCanopy builds the canopy command into a temporary folder.
func buildCanopy(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "canopy")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/canopy").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runClient runs the TypeScript client script and fails on any FAIL line.
func runClient(t *testing.T, mods string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"testdata/e2e/client.mjs"}, args...)...)
	cmd.Env = append(append(os.Environ(), "CANOPY_NODE_MODULES="+mods), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("TypeScript client:\n%s", out)
	if err != nil || strings.Contains(string(out), "FAIL") || !strings.Contains(string(out), "ok ") {
		t.Fatalf("the TypeScript SDK client failed: %v", err)
	}
}

// TestE2EStdio: the official TypeScript SDK starts `canopy mcp` and drives
// it over stdio, including killing Chromium mid-session.
func TestE2EStdio(t *testing.T) {
	mods := nodeModules(t)
	runClient(t, mods, nil, "stdio", buildCanopy(t), testSite.URL(""))
}

// TestE2EHTTP: the TypeScript SDK drives `canopy mcp --http` with the
// token; calls without it, or from a foreign Origin, are refused.
func TestE2EHTTP(t *testing.T) {
	mods := nodeModules(t)
	bin := buildCanopy(t)
	const token = "e2e-token-0123456789"
	cmd := exec.Command(bin, "mcp", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "CANOPY_TOKEN="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`MCP over HTTP at (\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("canopy mcp --http did not print its address")
	}
	runClient(t, mods, []string{"CANOPY_TOKEN=" + token}, "http", url, testSite.URL(""))
}
