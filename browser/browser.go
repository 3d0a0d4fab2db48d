// Package browser is canopy's browser source: it launches or attaches to
// Chromium over the Chrome DevTools Protocol (chromedp + cdproto) and turns a
// tab — its main frame, nested frames, cross-site (out-of-process) frames and
// shadow roots — into one tree.Node tree with stable refs.
//
// Gotchas a successor should know (docs/decisions has the why):
//   - Accessibility.getFullAXTree returns one frame's document only; every
//     child frame needs its own call, and an out-of-process frame needs a
//     session on its own target. We graft each frame's tree under the
//     <iframe> node that DOM.getFrameOwner names.
//   - chromedp auto-attaches out-of-process frames but does not route their
//     sessions; we attach to them with WithTargetID and WithDetachOnCancel
//     (cancelling a plain WithTargetID context closes the target).
//   - Backend DOM node ids are unique per renderer target, not per browser,
//     so a node's identity is (target, backend id).
package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/canopy-dev/canopy/internal/sysproc"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/tree"
)

// ErrEnvironment marks errors about the machine rather than the request: no
// browser found, a browser that crashed at launch, an endpoint that does not
// answer. The CLI exits with code 2 for them.
var ErrEnvironment = errors.New("environment problem")

// envError wraps err so that errors.Is(err, ErrEnvironment) holds while the
// message stays the one the user needs.
type envError struct{ err error }

func (e envError) Error() string         { return e.err.Error() }
func (e envError) Unwrap() []error       { return []error{e.err, ErrEnvironment} }
func envErrorf(f string, a ...any) error { return envError{fmt.Errorf(f, a...)} }

// Options say which browser to use and how.
type Options struct {
	// Exec is the Chromium or Chrome binary; empty means $CANOPY_CHROMIUM,
	// then chromium, chromium-browser, google-chrome on $PATH.
	Exec string
	// CDP attaches to a running browser (http://host:port or ws://…)
	// instead of launching one.
	CDP string
	// Headful shows a window (needs a display).
	Headful bool
	// Args are extra command-line flags for a launched browser ("--foo=bar").
	Args []string
	// Logger receives debug messages; nil discards them.
	Logger *slog.Logger
	// DownloadDir receives downloads; empty means a temporary folder that
	// Close removes.
	DownloadDir string
	// AskDownloads makes a launched browser show its own Save dialog for
	// every download (profile preference download.prompt_for_download), for
	// an agent to drive on the desktop; DownloadDir is the dialog's starting
	// folder.
	AskDownloads bool
	// Env adds variables to a launched browser's environment
	// (ACCESSIBILITY_ENABLED=1 makes Chromium join AT-SPI).
	Env []string
	// Refs is a ref table shared with another source (the desktop) in one
	// tree; nil makes the browser its own. A shared table is never reset on
	// a new document, since other sources' refs live in it too.
	Refs *tree.Refs
	// Domains is the session's --domains list (policy.Policy.Domains): the
	// browser fails every document request it refuses, in every tab and
	// frame, and reports it as an outcome line. nil loads anything. When
	// the browser cannot intercept requests, New fails.
	Domains *policy.DomainList
	// Isolated, with CDP, opens a browser context of the session's own in
	// the browser attached to, and a tab in it: its tabs, cookies, storage
	// and downloads are apart from the user's and from other canopy
	// sessions on the same browser (the MCP server's HTTP sessions), and
	// Close disposes of it. The browser's other tabs are not shown.
	Isolated bool
	// AllowPopups turns Chromium's popup blocker off for a launched
	// browser: windows a page opens by itself open as tabs. It is on by
	// default, so a page cannot open windows without end; popups from the
	// agent's clicks open either way.
	AllowPopups bool
	// Grant names permissions (action.PermissionTypes: geolocation,
	// notifications…) granted to every site from the start, headless or
	// not: a page asking for them gets them without a prompt.
	Grant []string
	// DriftCheck makes every read the kept tree would answer read the page
	// again and compare: a difference fails the read (a debug mode for
	// tests; $CANOPY_DRIFT_CHECK=1 on the command line). See kept.go.
	DriftCheck bool
	// OnDemandElements is the size, in elements, above which a budgeted
	// snapshot reads a document on demand, as far as it can show, rather
	// than whole (default 2,000; see partial.go). An action whose selector
	// matches nothing in the part read looks for it in the rest.
	OnDemandElements int
}

// Browser is one connection to Chromium and the current tab. Its refs stay
// stable for as long as the tab shows the same document. Methods are safe
// for concurrent use but actions on one tab are serialised.
type Browser struct {
	log *slog.Logger
	// driftCheck is Options.DriftCheck.
	driftCheck bool
	// onDemand is Options.OnDemandElements, defaulted; largeAt is the
	// size above which a read on demand skips the DOM snapshot
	// (largeDocElements; tests lower it).
	onDemand, largeAt int
	launched          bool // canopy started this browser (and will stop it)

	cancelAlloc context.CancelFunc
	browserCtx  context.Context // chromedp context of the first tab
	cancelTab   context.CancelFunc

	refs *tree.Refs

	mu     sync.Mutex
	frames map[target.ID]*frameSession // attached out-of-process frames
	last   *tree.Node                  // root of the last snapshot, to name nodes in errors
	stats  Stats                       // the cost of the last snapshot
	tabs   []*tab                      // open tabs, in the order they opened
	cur    *tab                        // the tab actions go to

	sinkMu sync.Mutex
	sink   *watch // the watch of the action in progress, nil between actions

	interceptor *interceptor // enforces Options.Domains; nil without

	// browserContext is the browser context canopy opened for the session
	// (Options.Isolated), whose targets alone it shows; "" for the
	// browser's default one, where every tab is shown.
	browserContext cdp.BrowserContextID

	closeOnce sync.Once

	downloadDir    string
	ownDownloadDir bool     // canopy made downloadDir and removes it
	askDownloads   bool     // the browser shows its Save dialog
	headless       bool     // a launched browser without a window: no print preview
	noDisplay      bool     // a launched browser with no display: external links open no app
	profileDir     string   // a launched browser's profile, removed by Close
	downloadNames  sync.Map // download GUID → suggested file name
	// downloadsAsking holds the downloads whose Save dialog is up (GUID →
	// true): they end when it closes (inflight.go).
	downloadsAsking sync.Map
	// downloadsOpen holds, with AskDownloads, the downloads begun and not
	// yet ended (GUID → true): one of them has its Save dialog up or
	// coming (SavesWithDialog).
	downloadsOpen sync.Map

	metas metaCache // each document's metadata (pagemap.go)
}

// New launches a browser, or attaches to one when opt.CDP is set, and opens
// its current tab. The context bounds the start only; Close stops it.
func New(ctx context.Context, opt Options) (*Browser, error) {
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Browser{log: log, refs: opt.Refs, frames: map[target.ID]*frameSession{},
		downloadDir: opt.DownloadDir, askDownloads: opt.AskDownloads && opt.CDP == "", headless: opt.CDP == "" && !opt.Headful,
		noDisplay: opt.CDP == "" && displayless(opt.Env), driftCheck: opt.DriftCheck, onDemand: opt.OnDemandElements}
	if b.onDemand <= 0 {
		b.onDemand = onDemandElements
	}
	b.largeAt = largeDocElements
	if b.refs == nil {
		b.refs = tree.NewRefs()
	}
	var err error
	if opt.CDP != "" {
		err = b.attach(ctx, opt.CDP, opt.Isolated)
	} else {
		err = b.launch(ctx, opt)
	}
	if err == nil {
		err = b.intercept(ctx, opt.Domains) // before canopy loads anything
	}
	if err == nil && len(opt.Grant) > 0 {
		err = b.grantAhead(ctx, opt.Grant)
	}
	if err == nil {
		err = b.startTabs(ctx)
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Launched reports whether canopy started this browser (rather than
// attaching to one that was running).
func (b *Browser) Launched() bool { return b.launched }

// Gone reports whether the connection to the browser dropped: the browser
// crashed, was killed or closed, or a --cdp endpoint went away. A gone
// Browser cannot recover; close it and open a new one.
func (b *Browser) Gone() bool {
	c := chromedp.FromContext(b.browserCtx)
	if c == nil || c.Browser == nil {
		return true
	}
	select {
	case <-c.Browser.LostConnection:
		return true
	default:
		return false
	}
}

// aliveCap bounds Alive's question. A browser that died answers at once
// (the connection fails); one that is up but busy — laying out a huge
// page, on a loaded machine — may take seconds, and was taken for dead
// (and replaced, losing the page) with a cap of 2 s at a load of 10.
const aliveCap = 10 * time.Second

// Alive asks the browser for its version, within aliveCap: it tells a
// browser that died a moment ago (before the connection noticed) from one
// that is up. Callers use it before a call, to start afresh instead of
// failing the call on a dead connection.
func (b *Browser) Alive(ctx context.Context) bool {
	if b.Gone() {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, aliveCap)
	defer cancel()
	_, err := cdp.Call(ctx, chromedp.FromContext(b.browserCtx).Browser, cdpbrowser.GetVersion, cdp.Empty{})
	return err == nil
}

// PID returns the process id of a browser canopy launched, or 0 when it
// attached to one (or the browser is gone).
func (b *Browser) PID() int {
	c := chromedp.FromContext(b.browserCtx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return 0
	}
	return c.Browser.Process().Pid
}

// Refs returns the session's ref table.
func (b *Browser) Refs() *tree.Refs { return b.refs }

func (b *Browser) launch(ctx context.Context, opt Options) error {
	path, err := FindExec(opt.Exec)
	if err != nil {
		return err
	}
	flags := append(chromedp.DefaultExecAllocatorOptions[:0:0], chromedp.DefaultExecAllocatorOptions[:]...)
	flags = append(flags,
		chromedp.ExecPath(path),
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		// chromedp's defaults switch the popup blocker off: a page could
		// then open windows without end. Popups from the agent's clicks
		// (user gestures) still open.
		chromedp.Flag("disable-popup-blocking", opt.AllowPopups),
		chromedp.WindowSize(1280, 800),
		// A process group of its own, so that the Ctrl-C a terminal sends
		// to canopy's group (canopy sh stops a command with it) does not
		// reach the browser; it still dies with canopy, as chromedp's
		// default has it.
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			sysproc.NewGroup(cmd)
			sysproc.DieWithParent(cmd)
		}),
	)
	if os.Getuid() == 0 {
		flags = append(flags, chromedp.NoSandbox)
	}
	if opt.Headful {
		flags = append(flags, chromedp.Flag("headless", false), chromedp.VisibleWindow,
			chromedp.Flag("window-position", "0,0"))
	}
	if len(opt.Env) > 0 {
		flags = append(flags, chromedp.Env(opt.Env...))
	}
	dir, err := b.profile()
	if err != nil {
		return err
	}
	flags = append(flags, chromedp.UserDataDir(dir))
	for _, a := range opt.Args {
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if hasVal {
			flags = append(flags, chromedp.Flag(name, val))
		} else {
			flags = append(flags, chromedp.Flag(name, true))
		}
	}
	allocCtx, cancel := chromedp.NewExecAllocator(context.Background(), flags...)
	b.cancelAlloc = cancel
	b.launched = true
	tabCtx, cancelTab := chromedp.NewContext(allocCtx, b.chromedpLogs()...)
	b.browserCtx, b.cancelTab = tabCtx, cancelTab
	if err := runWithin(ctx, tabCtx); err != nil {
		return envErrorf("start %s: %w", path, err)
	}
	return nil
}

func (b *Browser) attach(ctx context.Context, url string, isolated bool) error {
	allocCtx, cancel := remote.NewAllocator(context.Background(), url)
	b.cancelAlloc = cancel
	bctx, cancelB := chromedp.NewContext(allocCtx, b.chromedpLogs()...)
	targets, err := chromedp.Targets(bctx)
	if err != nil {
		cancelB()
		return envErrorf("attach to %s: %w", url, err)
	}
	if isolated {
		// A browser context of its own, with a first tab; cancelling the
		// tab's context disposes of the browser context and its tabs.
		tabCtx, cancelTab := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
		b.browserCtx = tabCtx
		b.cancelTab = func() { cancelTab(); cancelB() }
		if err := runWithin(ctx, tabCtx); err != nil {
			return envErrorf("open a browser context at %s: %w", url, err)
		}
		b.browserContext = chromedp.FromContext(tabCtx).BrowserContextID
		return nil
	}
	var id target.ID
	for _, t := range targets {
		if t.Type == "page" && !strings.HasPrefix(t.URL, "devtools://") {
			id = t.TargetID
			break
		}
	}
	if id == "" {
		cancelB()
		return envErrorf("attach to %s: the browser has no open tab", url)
	}
	tabCtx, cancelTab := chromedp.NewContext(bctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	b.browserCtx = tabCtx
	b.cancelTab = func() { cancelTab(); cancelB() }
	if err := runWithin(ctx, tabCtx); err != nil {
		return envErrorf("attach to tab %s at %s: %w", id, url, err)
	}
	return nil
}

// chromedpLogs routes chromedp's own messages (by default printed with the
// standard logger) to the session's logger at debug level: they are about
// CDP plumbing, and the errors that matter reach the caller as values.
func (b *Browser) chromedpLogs() []chromedp.ContextOption {
	logf := func(format string, args ...any) { b.log.Debug(fmt.Sprintf(format, args...), "from", "chromedp") }
	return []chromedp.ContextOption{chromedp.WithLogf(logf), chromedp.WithErrorf(logf), chromedp.WithDebugf(func(string, ...any) {})}
}

// runWithin runs chromedp's first (starting) step on tabCtx, but gives up
// when ctx ends: tabCtx lives for the whole session, ctx only for the start.
func runWithin(ctx context.Context, tabCtx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(tabCtx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("browser did not start: %w", ctx.Err())
	}
}

// CloseTimeout caps how long Close waits for the browser to close
// gracefully before it stops a launched browser's process.
const CloseTimeout = 5 * time.Second

// Close detaches from out-of-process frames, closes the tab when canopy
// opened it, and stops a browser that canopy launched (removing its
// temporary profile). It never waits more than CloseTimeout for the
// browser: one that does not close in time is killed. It is safe to call
// more than once.
func (b *Browser) Close() error {
	b.closeOnce.Do(b.close)
	return nil
}

func (b *Browser) close() {
	// Cancel outside the lock: a cancel waits for chromedp's goroutines,
	// and an event listener among them may be waiting for the lock.
	var cancels []context.CancelFunc
	b.mu.Lock()
	for id, f := range b.frames {
		cancels = append(cancels, f.cancel)
		delete(b.frames, id)
	}
	for _, t := range b.tabs {
		if t.cancel != nil {
			cancels = append(cancels, t.cancel)
		}
	}
	b.tabs, b.cur = nil, nil
	b.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, cancel := range cancels {
			cancel()
		}
		if b.cancelTab != nil {
			if b.launched && b.browserCtx != nil {
				_ = chromedp.Cancel(b.browserCtx) // graceful close, waits for the profile to go
			}
			b.cancelTab()
		}
	}()
	select {
	case <-done:
	case <-time.After(CloseTimeout):
		b.log.Warn("the browser did not close in time; stopping it", "waited", CloseTimeout)
	}
	if b.cancelAlloc != nil {
		b.cancelAlloc() // stops a launched browser's process
	}
	if b.ownDownloadDir {
		_ = os.RemoveAll(b.downloadDir)
	}
	if b.profileDir != "" {
		_ = os.RemoveAll(b.profileDir)
	}
}

// profile makes a fresh profile for a launched browser: preloading off
// (no page can make it prefetch or prerender: preload.go), and with
// AskDownloads, downloads that ask where to save (the browser's own Save
// dialog), starting in the downloads folder. Chromium reads
// Default/Preferences written before its first start.
func (b *Browser) profile() (string, error) {
	prefs := preloadPrefs() // preload.go
	if b.askDownloads {
		if err := b.ensureDownloadDir(); err != nil {
			return "", err
		}
		prefs["download"] = map[string]any{"prompt_for_download": true, "default_directory": b.downloadDir, "directory_upgrade": true}
		prefs["savefile"] = map[string]any{"default_directory": b.downloadDir}
	}
	dir, err := os.MkdirTemp("", "canopy-profile-")
	if err != nil {
		return "", fmt.Errorf("make a browser profile: %w", err)
	}
	b.profileDir = dir
	data, _ := json.Marshal(prefs)
	if err := os.MkdirAll(filepath.Join(dir, "Default"), 0o700); err != nil {
		return "", fmt.Errorf("make a browser profile: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Default", "Preferences"), data, 0o600); err != nil {
		return "", fmt.Errorf("make a browser profile: %w", err)
	}
	return dir, nil
}

// ensureDownloadDir makes the session's downloads folder when none was
// given.
func (b *Browser) ensureDownloadDir() error {
	if b.downloadDir != "" {
		return nil
	}
	dir, err := os.MkdirTemp("", "canopy-downloads-")
	if err != nil {
		return fmt.Errorf("make the downloads folder: %w", err)
	}
	b.downloadDir, b.ownDownloadDir = dir, true
	return nil
}

// DownloadDir is the folder downloads go to (or where the Save dialog
// starts, with AskDownloads).
func (b *Browser) DownloadDir() string { return b.downloadDir }

// FindExec returns the browser binary to launch: explicit when given, else
// $CANOPY_CHROMIUM, else the first of chromium, chromium-browser,
// google-chrome, google-chrome-stable on $PATH.
func FindExec(explicit string) (string, error) {
	if explicit == "" {
		explicit = os.Getenv("CANOPY_CHROMIUM")
	}
	if explicit != "" {
		p, err := exec.LookPath(explicit)
		if err != nil {
			return "", envErrorf("browser %q not found: %w", explicit, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", envErrorf("no browser found: install Chromium (Debian/Ubuntu: apt-get install chromium), or pass --chromium PATH or set CANOPY_CHROMIUM")
}
