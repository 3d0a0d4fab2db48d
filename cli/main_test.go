package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// Environment variables that make the test binary run canopy itself, so
// that a test can start canopy as a child process (under a terminal, say)
// without building it: mainEnv set to 1 runs Main with the arguments
// argsEnv holds, a JSON array of strings.
const (
	mainEnv = "CANOPY_CLI_MAIN"
	argsEnv = "CANOPY_CLI_ARGS"
)

// TestMain runs canopy as cmd/canopy does — Main with a context that
// SIGINT and SIGTERM end — when mainEnv asks for it, else the tests.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) != "1" {
		os.Exit(m.Run())
	}
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv(argsEnv)), &args); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", argsEnv, err)
		os.Exit(ExitInput)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
