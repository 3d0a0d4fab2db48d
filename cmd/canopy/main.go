// Command canopy gives AI agents one tool surface over web pages and the
// desktop, built on accessibility trees. See the README and `canopy --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/canopy-dev/canopy/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
