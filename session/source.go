package session

import (
	"time"

	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// Source is what the executor needs from a browser tab or the desktop. It is
// deliberately small: everything above it — selectors, policy, settling,
// diffs, formatting — is shared.
type Source interface {
	// Snapshot reads the current view as a cleaned tree with stable refs.
	// full reads everything even of a huge page.
	Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error)
	// Watch starts collecting activity and outcomes. The executor calls it
	// just before acting and stops it after settling.
	Watch(ctx context.Context) (Watcher, error)
	// Do performs a on target (and to, for a drag), both resolved by the
	// executor from the snapshot it just read; either may be nil when the
	// action has none. The permit must have been issued for a. Do checks
	// actionability (scrolled into view, visible, stable, not covered) and
	// returns an *ActionError naming the node when it fails, or an error
	// wrapping ErrStale when the node left the page.
	Do(ctx context.Context, p *policy.Permit, a action.Action, target, to *tree.Node) (Output, error)
}

// Watcher reports what happens while an action runs.
type Watcher interface {
	// Events feeds the settler.
	Events() <-chan settle.Event
	// Stop ends the watch and returns the outcome lines seen (navigation,
	// tabs, downloads, JavaScript dialogs) and whether the document was
	// replaced.
	Stop() (outcomes []string, replaced bool)
}

// Output is what an action produced besides its effect on the page.
type Output struct {
	// Text is a reading: extracted content, an evaluation's result, a tab
	// list. Actions that only act leave it empty.
	Text string
	// More is a line to follow Text saying what the reading left out and
	// how to get it (`… 120 more characters of text (extract text from
	// 200000)`). It is canopy's, not the page's: it stays outside the page
	// fence.
	More string
	// Image is a PNG, for screenshot. Given a path, the executor saves it
	// there (package save).
	Image []byte
	// Shot places Image in the tree's units, so the executor can paint
	// over every credential it shows (shotmask.go). A screenshot without
	// it is refused while a credential shows.
	Shot *Shot
	// File is a file the action made for canopy to save (print's PDF).
	// The executor saves it, through the one writer (package save): a
	// source never writes files itself.
	File *File
	// Outcomes are lines the source wants first in the reply.
	Outcomes []string
	// Unchanged says the action had nothing to do (checking a checked box).
	Unchanged bool
	// Replaced says the view now shows another document (a tab switch): the
	// reply is the new view's snapshot rather than a diff.
	Replaced bool
}

// File is a file an action made: its contents, and the plain file name
// (no folder) it is saved as when the action names no path.
type File struct {
	Name string
	Data []byte
}

// ClipboardWritten is the outcome line of a clipboard write, worded once
// for every source.
func ClipboardWritten(text string) string {
	if n := utf8.RuneCountInString(text); n != 1 {
		return fmt.Sprintf("put %d characters on the clipboard", n)
	}
	return "put 1 character on the clipboard"
}

// ErrStale marks a node that left the page between resolving and acting.
// The executor re-resolves it once by its ref and retries.
var ErrStale = errors.New("the element is no longer on the page")

// ActionError says why an action could not be done on a node: it is
// disabled, hidden, covered, not editable… Node is filled in by the executor.
type ActionError struct {
	Kind   action.Kind
	Node   string // tree.Line of the node
	Reason string // "is disabled", "is covered by dialog \"Cookies\" e40"
	Err    error  // an underlying cause, if any
}

func (e *ActionError) Error() string {
	s := "cannot " + string(e.Kind)
	if e.Node != "" {
		s += " " + e.Node
	}
	s += ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ActionError) Unwrap() error { return e.Err }

// A Downloader is a source with a downloads folder (a browser): the
// policy lets uploads at the act tier come from it, and the files actions
// make are saved in it, unless Options.Downloads names the session's.
type Downloader interface {
	DownloadDir() string
}

// downloads is the session's downloads folder: Options.Downloads, else
// the source's, else "" (none).
func (s *Session) downloads() string {
	if s.opt.Downloads != "" {
		return s.opt.Downloads
	}
	if d, ok := s.src.(Downloader); ok {
		return d.DownloadDir()
	}
	return ""
}

// request gathers what the policy decides an action on: the action, the
// node it resolved to, the session's downloads folder.
func (s *Session) request(a action.Action, target string) policy.Request {
	return policy.Request{Action: a, Target: target, Downloads: s.downloads()}
}

// A Flusher is a Watcher that can prove its source up to date, so that an
// action settles sooner (settle.WaitFlushed): Flush starts a round trip to
// the page or app, and reports settle.Flushed on Events once it is back,
// after every event sent before the answer. It must not block.
type Flusher interface {
	Flush()
}

// A Tailer is a Watcher whose source needs another tail than the default
// (settle.Options.Tail): a desktop application has applied an action's
// effects by the time it answers a round trip, while a page's scripts
// render some a little later, on timers.
type Tailer interface {
	SettleTail() time.Duration
}

// settleOptions are the session's settle options for a watch: its tail,
// when the session sets none, the watcher's.
func (s *Session) settleOptions(w Watcher) settle.Options {
	opt := s.opt.Settle
	if t, ok := w.(Tailer); ok && opt.Tail == 0 {
		opt.Tail = t.SettleTail()
	}
	return opt
}

// flushOf is w's Flush, nil when w cannot flush.
func flushOf(w Watcher) func() {
	if f, ok := w.(Flusher); ok {
		return f.Flush
	}
	return nil
}
