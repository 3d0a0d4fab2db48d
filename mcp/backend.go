package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/workspace"
)

// startTimeout caps launching or attaching to a browser.
const startTimeout = 30 * time.Second

// backend owns the browser and the session the tools run on. It starts the
// browser on the first call that needs it, and when the browser went away
// (crashed, killed, closed, or a --cdp endpoint that disappeared) it opens
// a new one on the next call and says that page state was lost.
type backend struct {
	opt   browser.Options
	allow action.Tier // 0: act on a browser canopy launched, observe when attached
	rules []policy.Option
	sopt  session.Options
	log   *slog.Logger

	// desktop serves the desktop and a headful browser on it as one tree.
	desktop bool
	ws      *workspace.Workspace

	mu     sync.Mutex
	b      *browser.Browser
	s      *session.Session
	lost   bool   // a browser was open and went away; the next start says so
	closed bool   // Close was called
	starts int    // browsers started, for tests
	pend   string // a note for the next reply (e.g. the browser was relaunched)
}

func newBackend(opt browser.Options, allow action.Tier, rules []policy.Option, sopt session.Options, log *slog.Logger) *backend {
	return &backend{opt: opt, allow: allow, rules: rules, sopt: sopt, log: log}
}

// session returns the session to run on, starting a browser when there is
// none or the last one went away. note, when not empty, is a line for the
// top of the reply ("the browser had closed…").
func (k *backend) session(ctx context.Context) (s *session.Session, note string, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, "", errors.New("the server is shutting down")
	}
	if k.desktop {
		if k.ws == nil {
			if err := k.startDesktopLocked(ctx); err != nil {
				return nil, "", err
			}
		}
		return k.s, "", nil
	}
	if k.b != nil && !k.b.Alive(ctx) {
		k.dropLocked()
	}
	if k.b == nil {
		if err := k.startLocked(ctx); err != nil {
			return nil, "", err
		}
	}
	note, k.pend = k.pend, ""
	return k.s, note, nil
}

// startLocked launches or attaches to the browser and makes a new session.
func (k *backend) startLocked(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	b, err := browser.New(sctx, k.opt)
	if err != nil {
		if k.opt.CDP != "" {
			return fmt.Errorf("the browser at %s is not reachable (canopy reconnects on the next call once it is back): %w", k.opt.CDP, err)
		}
		return err
	}
	tier := k.allow
	if tier == 0 {
		tier = action.Act
		if !b.Launched() {
			tier = action.Observe
		}
	}
	k.b, k.s = b, session.New(b.Source(), policy.New(tier, k.rules...), k.sopt)
	k.starts++
	if k.lost {
		k.lost = false
		if k.opt.CDP != "" {
			k.pend = "note: reconnected to the browser at " + k.opt.CDP + "; refs from before are gone, take a new snapshot"
		} else {
			k.pend = "note: the browser had closed or crashed; started a new one (page state was lost)"
		}
	}
	return nil
}

// startDesktopLocked opens the desktop and a session over it and the
// browser, which starts headful on the desktop, with AT-SPI on, at the
// first action that needs it. Both share one ref table: one tree.
func (k *backend) startDesktopLocked(ctx context.Context) error {
	opt := k.opt
	if opt.Logger == nil {
		opt.Logger = k.log
	}
	ws, err := workspace.Open(ctx, opt)
	if err != nil {
		return err
	}
	tier := k.allow
	if tier == 0 {
		tier = action.Act
		if k.opt.CDP != "" {
			tier = action.Observe // a browser canopy did not start
		}
	}
	k.ws = ws
	k.s = session.New(k.ws, policy.New(tier, k.rules...), k.sopt)
	return nil
}

// dropLocked forgets a browser that went away.
func (k *backend) dropLocked() {
	k.log.Warn("the browser went away", "cdp", k.opt.CDP)
	_ = k.b.Close()
	k.b, k.s, k.lost = nil, nil, true
}

// failed turns an error from a call into one that says the browser went
// away when it did, so the agent knows the next call starts afresh.
func (k *backend) failed(err error) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.b == nil || !k.b.Gone() {
		return err
	}
	k.dropLocked()
	if k.opt.CDP != "" {
		return fmt.Errorf("lost the connection to the browser at %s (the next call reconnects): %w", k.opt.CDP, err)
	}
	return fmt.Errorf("the browser closed or crashed during the call (the next call starts a new one): %w", err)
}

// browser returns the open browser, or nil.
func (k *backend) browser() *browser.Browser {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.b
}

// Close stops the browser canopy launched (or detaches from an attached
// one). Calls after Close fail.
func (k *backend) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	if k.ws != nil {
		err := k.ws.Close()
		k.ws, k.s = nil, nil
		return err
	}
	if k.b == nil {
		return nil
	}
	err := k.b.Close()
	k.b, k.s = nil, nil
	return err
}
