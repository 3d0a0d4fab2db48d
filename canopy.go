// Package canopy opens sessions: one constructor, [Open], that every
// surface uses — the CLI's commands, each MCP session, the benchmarks and
// programs that use canopy as a library. It opens the sources (a browser
// canopy launches or attaches to, or the desktop with a browser on it),
// picks the tier's default, and wires the rules (files folder, programs,
// secrets, confirmations, domains), the audit log and the downloads folder
// into one executor ([session.Session]).
//
// Everything an agent does then goes through [Session.Run] with an
// [action.Action]; the executor checks the policy at every leaf action,
// settles on events and answers with what changed.
package canopy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/workspace"
)

// StartTimeout caps launching or attaching to a browser, or opening the
// desktop, when the caller's context has no earlier deadline.
const StartTimeout = 30 * time.Second

// Config says what a session opens and which rules govern it. The zero
// value launches a headless Chromium with a fresh profile, at the act tier.
type Config struct {
	// Browser says which browser to launch, or to attach to (CDP).
	Browser browser.Options
	// Desktop opens the desktop (AT-SPI on $DISPLAY) instead, with the
	// browser headful on it, started by the first action that needs it:
	// page and desktop in one tree. Linux only so far: elsewhere Open
	// fails with an error wrapping desktop.ErrUnsupported.
	Desktop bool
	// Allow is the permission tier; 0 means act on a browser canopy
	// launches and observe when attached to one it did not start (docs/tiers.md).
	Allow action.Tier
	// Rules are the session's other rules: policy.Files, policy.Apps,
	// policy.Domains, policy.Secrets, policy.Keyring, policy.Confirm. A
	// rule that cannot be applied (a secrets file others can read, a bad
	// pattern) stops Open.
	Rules []policy.Option
	// AuditFile, when set, receives one JSON line per action (created
	// 0600, appended to); Close closes it. A log shared by several
	// sessions goes in Session.Audit instead.
	AuditFile string
	// Session tunes the executor: settling, budgets, the logger, the
	// audit log and the surface and client named in it.
	Session session.Options
}

// Tier is the tier a session with this config runs at: Allow, else act on
// a browser canopy launches and observe on one it attaches to.
func (c Config) Tier() action.Tier {
	switch {
	case c.Allow != 0:
		return c.Allow
	case c.Browser.CDP != "":
		return action.Observe
	}
	return action.Act
}

// Check applies the rules without opening anything: a surface that opens
// sessions later (the MCP server, at its first call) checks at its start,
// so a bad rule stops it there.
func (c Config) Check() error {
	if _, err := policy.Open(c.Tier(), c.Rules...); err != nil {
		return err
	}
	return c.checkGrant()
}

// checkGrant holds permissions granted ahead (Browser.Grant) to the tier a
// permissions action granting them needs: granting the clipboard lets
// every page read it, which is sensitive.
func (c Config) checkGrant() error {
	if len(c.Browser.Grant) == 0 {
		return nil
	}
	a := action.Action{Kind: action.Permissions, Grant: c.Browser.Grant}
	if err := a.Validate(); err != nil {
		return fmt.Errorf("--grant: %w", err)
	}
	if need := a.Tier(); need > c.Tier() {
		return fmt.Errorf("--grant %s needs the %s tier; this session allows %s", strings.Join(c.Browser.Grant, ","), need, c.Tier())
	}
	return nil
}

// Session is an open session: the executor, and the sources and files it
// owns. Run actions with Run; Close when done.
type Session struct {
	*session.Session
	policy *policy.Policy
	b      *browser.Browser     // the browser, when not on the desktop
	ws     *workspace.Workspace // the desktop and its browser
	log    *audit.Log           // an audit log Open opened, closed by Close
	dl     string               // the downloads folder
	ownDL  bool                 // Open made dl, and Close removes it
}

// Open opens the sources cfg names and a session over them. The context
// bounds the start only (capped at StartTimeout); Close ends the session.
// The rules are checked before anything starts, so a session never runs
// without the rules it was given.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	pol, err := policy.Open(cfg.Tier(), cfg.Rules...)
	if err != nil {
		return nil, err
	}
	if err := cfg.checkGrant(); err != nil {
		return nil, err
	}
	s := &Session{policy: pol}
	sopt := cfg.Session
	if cfg.AuditFile != "" {
		if sopt.Audit != nil {
			return nil, errors.New("canopy: give an audit file or a shared audit log, not both")
		}
		if s.log, err = audit.Open(cfg.AuditFile); err != nil {
			return nil, err
		}
		sopt.Audit = s.log
	}
	bopt := cfg.Browser
	if bopt.Logger == nil {
		bopt.Logger = sopt.Logger
	}
	// The session's downloads folder is there from the start, the same
	// for every browser the session starts (the desktop starts one with
	// the first page action, and again when it went away): the files
	// actions make are saved in it (package save).
	if err := s.downloads(&bopt); err != nil {
		s.log.Close()
		return nil, err
	}
	sopt.Downloads = bopt.DownloadDir
	// The browser judges every document request against --domains
	// (redirects, frames, popups), beyond the policy's own check of the
	// URLs actions name.
	bopt.Domains = pol.Domains()
	sctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	var src session.Source
	if cfg.Desktop {
		s.ws, err = workspace.Open(sctx, bopt)
		src = s.ws
	} else if s.b, err = browser.New(sctx, bopt); err == nil {
		src = s.b.Source()
	}
	if err != nil {
		s.log.Close()
		s.removeTemp()
		return nil, err
	}
	s.Session = session.New(src, pol, sopt)
	return s, nil
}

// downloads makes the downloads folder opt names when it is missing, or,
// when it names none, a temporary one that Close removes.
func (s *Session) downloads(opt *browser.Options) error {
	if opt.DownloadDir != "" {
		if err := os.MkdirAll(opt.DownloadDir, 0o700); err != nil {
			return fmt.Errorf("make the downloads folder: %w", err)
		}
		s.dl = opt.DownloadDir
		return nil
	}
	dir, err := os.MkdirTemp("", "canopy-downloads-")
	if err != nil {
		return fmt.Errorf("make the downloads folder: %w", err)
	}
	opt.DownloadDir, s.dl, s.ownDL = dir, dir, true
	return nil
}

// removeTemp removes the downloads folder Open made, with what is in it.
func (s *Session) removeTemp() {
	if s.ownDL {
		_ = os.RemoveAll(s.dl)
	}
}

// Downloads is the session's downloads folder, and whether it is one Open
// made, which Close removes with the files in it.
func (s *Session) Downloads() (dir string, temporary bool) {
	return s.dl, s.ownDL
}

// Tier is the session's permission tier.
func (s *Session) Tier() action.Tier { return s.policy.Tier() }

// Browser returns the session's browser: the one Open started, or on the
// desktop the one the first page action started (nil before).
func (s *Session) Browser() *browser.Browser {
	if s.ws != nil {
		return s.ws.Browser()
	}
	return s.b
}

// Workspace returns the desktop and its browser, or nil for a browser
// session.
func (s *Session) Workspace() *workspace.Workspace { return s.ws }

// Close stops what the session started — the browser canopy launched
// (an attached one is only detached from), the desktop connection — and
// closes an audit file Open opened.
func (s *Session) Close() error {
	var errs []error
	if s.ws != nil {
		errs = append(errs, s.ws.Close())
	}
	if s.b != nil {
		errs = append(errs, s.b.Close())
	}
	errs = append(errs, s.log.Close())
	s.removeTemp()
	return errors.Join(errs...)
}
