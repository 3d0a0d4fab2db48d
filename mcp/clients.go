package mcp

import (
	"errors"
	"log/slog"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy"
)

// clients gives every MCP session its own world (docs/tools.md): its own
// backend, so its own browser — tabs, cookies, storage, downloads — its
// own refs and its own session under the server's rules and tier. A
// backend is made at the session's first tool call (tools/list starts
// nothing) and closed when the session ends: the client closes it, the
// stdio stream ends, or over HTTP it stays idle past the idle timeout or
// gives way to a new session at the cap (seats).
type clients struct {
	cfg canopy.Config
	log *slog.Logger

	mu     sync.Mutex
	by     map[*sdk.ServerSession]*backend
	closed bool
	// isolated gives each session attached to a running browser (--cdp)
	// a browser context of its own, as over HTTP, where clients are
	// strangers to each other. On stdio the one client drives the
	// browser's own tabs.
	isolated bool
}

func newClients(cfg canopy.Config, log *slog.Logger) *clients {
	return &clients{cfg: cfg, log: log, by: map[*sdk.ServerSession]*backend{}}
}

// of returns the backend of the MCP session ss, making it on first use.
func (c *clients) of(ss *sdk.ServerSession) (*backend, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("the server is shutting down")
	}
	if k := c.by[ss]; k != nil {
		return k, nil
	}
	cfg := c.cfg
	if c.isolated && cfg.Browser.CDP != "" {
		cfg.Browser.Isolated = true
	}
	if ss != nil {
		cfg.Session.Client = ss.ID() // names the session in the audit log
	}
	k := newBackend(cfg, c.log)
	c.by[ss] = k
	if ss != nil {
		go func() {
			_ = ss.Wait()
			c.drop(ss)
		}()
	}
	return k, nil
}

// drop closes the backend of a session that ended.
func (c *clients) drop(ss *sdk.ServerSession) {
	c.mu.Lock()
	k := c.by[ss]
	delete(c.by, ss)
	c.mu.Unlock()
	if k != nil {
		if err := k.Close(); err != nil {
			c.log.Warn("close a session's browser", "err", err)
		}
	}
}

// isolate makes every later session attached with --cdp open a browser
// context of its own.
func (c *clients) isolate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.isolated = true
}

// live is the number of sessions with a backend.
func (c *clients) live() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.by)
}

// Close closes every backend; later calls fail.
func (c *clients) Close() error {
	c.mu.Lock()
	c.closed = true
	all := c.by
	c.by = map[*sdk.ServerSession]*backend{}
	c.mu.Unlock()
	var errs []error
	for _, k := range all {
		errs = append(errs, k.Close())
	}
	return errors.Join(errs...)
}
