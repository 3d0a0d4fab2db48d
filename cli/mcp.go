package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/mcp"
)

type mcpFlags struct {
	browserFlags
	policyFlags
	http        string
	token       string
	desktop     bool
	maxSessions int
	idle        time.Duration
}

func newMCPCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve canopy's tools over MCP (stdio, or streamable HTTP with --http)",
		Long: `Serve canopy's tools to an agent over the Model Context Protocol.

By default the server speaks on stdin/stdout, the way Claude Code, Cursor
and VS Code start MCP servers. With --http it serves streamable HTTP at
/mcp instead: on 127.0.0.1 unless the address names another host, and every
request needs "Authorization: Bearer TOKEN" (--token, $CANOPY_TOKEN, or a
token generated and printed to stderr at start).

A headless Chromium starts on the first tool call that needs it; with
--cdp the server attaches to a running browser instead.

With --desktop the tools also reach the Linux desktop over AT-SPI: apps,
windows, native dialogs (open_app and activate are added), and Chromium
runs headful on the desktop with its page grafted into its window, so a
download's Save dialog is one more window (--downloads ask).`,
		Example: `  claude mcp add canopy -- canopy mcp
  canopy mcp --http 8931            # http://127.0.0.1:8931/mcp
  canopy mcp --cdp http://127.0.0.1:9222 --allow act
  canopy mcp --desktop --downloads ask`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), f, stdin, stdout, stderr)
		},
	}
	f.register(cmd)
	f.registerPolicy(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on this address (PORT or HOST:PORT) instead of stdio")
	fl.StringVar(&f.token, "token", "", "bearer token for --http (default: $CANOPY_TOKEN, else generated)")
	fl.IntVar(&f.maxSessions, "max-sessions", mcp.DefaultMaxSessions, "with --http, the most MCP sessions served at once (each has its own browser); at the cap, the idle session used longest ago gives way to a new one")
	fl.DurationVar(&f.idle, "idle-timeout", mcp.DefaultIdleTimeout, "with --http, close a session (and its browser) after this long without a request")
	fl.BoolVar(&f.desktop, "desktop", false, "serve the desktop too (AT-SPI), with the browser headful on it; starts a virtual desktop when there is no DISPLAY")
	return cmd
}

func runMCP(ctx context.Context, f mcpFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := sessionConfig(f.browserFlags, f.policyFlags, f.desktop, stderr)
	if err != nil {
		return err
	}
	if f.desktop {
		down, err := ensureDisplay(ctx, stderr, cfg.Browser.Logger)
		if err != nil {
			return err
		}
		defer down()
	}
	// One audit log for every MCP session: opened here, shared.
	if cfg.AuditFile != "" {
		log, err := audit.Open(cfg.AuditFile)
		if err != nil {
			return err
		}
		defer log.Close()
		cfg.AuditFile, cfg.Session.Audit = "", log
	}
	cfg.Session.Surface = "mcp"
	srv, err := mcp.New(mcp.Options{Session: cfg, Version: version, Logger: cfg.Browser.Logger,
		MaxSessions: f.maxSessions, IdleTimeout: f.idle})
	if err != nil {
		return err
	}
	defer srv.Close()
	if f.http == "" {
		return srv.ServeStdio(ctx, stdin, stdout)
	}
	addr, public, err := mcp.ListenAddr(f.http)
	if err != nil {
		return err
	}
	token := f.token
	if token == "" {
		token = os.Getenv("CANOPY_TOKEN")
	}
	if token == "" {
		if token, err = mcp.NewToken(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "canopy: token %s (send Authorization: Bearer %s)\n", token, token)
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	if public {
		fmt.Fprintf(stderr, "canopy: warning: listening on %s, reachable from other machines; anyone with the token can drive the browser\n", addr)
	}
	fmt.Fprintf(stderr, "canopy: MCP over HTTP at http://%s%s\n", ln.Addr(), mcp.Path)
	return srv.ServeHTTP(ctx, ln, token)
}
