package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/shell"
)

// backend owns the session the tools run on, opened with canopy.Open on
// the first call that needs it. When its browser went away (crashed,
// killed, closed, or a --cdp endpoint that disappeared) it opens a new one
// on the next call and says that page state was lost. On the desktop the
// workspace restarts its browser itself.
type backend struct {
	cfg canopy.Config
	log *slog.Logger

	mu     sync.Mutex
	s      *canopy.Session
	lost   bool   // a browser was open and went away; the next start says so
	closed bool   // Close was called
	starts int    // sessions opened, for tests
	pend   string // a note for the next reply (e.g. the browser was relaunched)

	sh   *shell.Shell     // the shell tool's interpreter, kept between calls
	shOn *session.Session // the session sh runs on
}

func newBackend(cfg canopy.Config, log *slog.Logger) *backend {
	return &backend{cfg: cfg, log: log}
}

// session returns the session to run on, opening one when there is none
// or its browser went away. note, when not empty, is a line for the top
// of the reply ("the browser had closed…").
func (k *backend) session(ctx context.Context) (s *session.Session, note string, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, "", errors.New("the server is shutting down")
	}
	// The probe has its own deadline: a call whose own context is spent
	// (cancelled, or out of time) must not take a healthy browser for a
	// dead one.
	if k.s != nil && !k.cfg.Desktop && !k.s.Browser().Alive(context.WithoutCancel(ctx)) {
		k.dropLocked()
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if k.s == nil {
		if err := k.openLocked(ctx); err != nil {
			return nil, "", err
		}
	}
	note, k.pend = k.pend, ""
	return k.s.Session, note, nil
}

// openLocked opens a session as the config says. The start runs on a
// context of its own (capped by canopy.StartTimeout), not the call's: a
// call cancelled now must not leave a half-started browser behind.
func (k *backend) openLocked(ctx context.Context) error {
	s, err := canopy.Open(context.WithoutCancel(ctx), k.cfg)
	if err != nil {
		if cdp := k.cfg.Browser.CDP; cdp != "" && !k.cfg.Desktop {
			return fmt.Errorf("the browser at %s is not reachable (canopy reconnects on the next call once it is back): %w", cdp, err)
		}
		return err
	}
	k.s = s
	k.starts++
	if k.lost {
		k.lost = false
		if cdp := k.cfg.Browser.CDP; cdp != "" {
			k.pend = "note: reconnected to the browser at " + cdp + "; refs from before are gone, take a new snapshot"
		} else {
			k.pend = "note: the browser had closed or crashed; started a new one (page state was lost)"
		}
	}
	return nil
}

// dropLocked forgets a session whose browser went away. It is closed in
// the background: closing waits on the browser, and no lock is held
// across a call that can block.
func (k *backend) dropLocked() {
	k.log.Warn("the browser went away", "cdp", k.cfg.Browser.CDP)
	go k.s.Close()
	k.s, k.lost = nil, true
}

// failed turns an error from a call into one that says the browser went
// away when it did, so the agent knows the next call starts afresh.
func (k *backend) failed(err error) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.s == nil || k.cfg.Desktop || !k.s.Browser().Gone() {
		return err
	}
	k.dropLocked()
	if cdp := k.cfg.Browser.CDP; cdp != "" {
		return fmt.Errorf("lost the connection to the browser at %s (the next call reconnects): %w", cdp, err)
	}
	return fmt.Errorf("the browser closed or crashed during the call (the next call starts a new one): %w", err)
}

// browser returns the open browser, or nil.
func (k *backend) browser() *browser.Browser {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.s == nil {
		return nil
	}
	return k.s.Browser()
}

// Close ends the session: stops the browser canopy launched (or detaches
// from an attached one). Calls after Close fail.
func (k *backend) Close() error {
	k.mu.Lock()
	k.closed = true
	s := k.s
	k.s = nil
	k.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close()
}
