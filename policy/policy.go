// Package policy decides whether an action may run, and hands out the
// [Permit] that a source demands before it touches a page or an app.
//
// The permit is how "checked at every leaf action" is enforced by the
// compiler rather than by convention: a source's acting methods take a
// *Permit, and only [Policy.Permit] can make one that is valid. A batch
// step, a shell loop or a script that wants to reach a source must ask the
// policy first, for that very action; the permit names the action it was
// given for and the source checks that it matches.
//
// The policy decides on the whole action, not only its kind: the URL a
// navigation loads (javascript:, file: … need the sensitive tier; hosts
// --domains refuses are refused at every tier), the
// files an upload reads (at act only from the session's files folder) and
// the program open_app starts and what it is given (at act only installed
// desktop applications that run no code they are handed, with URLs and
// files from the session's folders, and programs named with [Apps]). It decides before anything about a file
// or a program is looked at, so a refusal says nothing about them.
package policy

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/tree"
)

// ErrDenied marks an action the policy refused.
var ErrDenied = errors.New("not permitted")

// Policy holds the rules of one session.
type Policy struct {
	tier  action.Tier
	files string   // uploads at act come from here; "" = the session's downloads
	apps  []string // programs (or globs) open_app may start at act, besides desktop apps
	deny  []string // globs of applications no action may start or touch (--apps '!…')
	// appsErr is the first --apps pattern that does not parse.
	appsErr error

	once    sync.Once
	desktop map[string]program // programs of installed desktop applications
	shells  map[string]bool    // login shells (/etc/shells), by path and name

	secrets     map[string]secret // from the secrets file, by lower-case name
	secretsPath string
	secretsErr  error
	keyringSet  bool          // Keyring was given: ask the keyring on keyringAddr ("": none)
	keyringAddr string        // else: the session bus, as $DBUS_SESSION_BUS_ADDRESS is then
	keyringWait time.Duration // caps a keyring lookup; 0: keyringTimeout (tests shorten it)

	confirm    *selector.Selector // actions on nodes it matches need a yes
	confirmErr error

	domains    *DomainList // where the browser may go (--domains); nil: anywhere
	domainsErr error
}

// Option adds a rule to a policy.
type Option func(*Policy)

// Files sets the folder uploads may come from at the act tier (--files).
// Without it, they come from the session's downloads folder.
func Files(dir string) Option {
	return func(p *Policy) {
		if dir != "" {
			if abs, err := filepath.Abs(dir); err == nil {
				dir = abs
			}
			p.files = filepath.Clean(dir)
		}
	}
}

// New returns a policy that allows actions up to tier, with the rules opts
// add.
func New(tier action.Tier, opts ...Option) *Policy {
	p := &Policy{tier: tier}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Open is New for rules that read files (Secrets) or parse patterns
// (Apps, Confirm, Domains): it fails, closed, when one cannot be
// applied, so no session starts without the rules it was given.
func Open(tier action.Tier, opts ...Option) (*Policy, error) {
	p := New(tier, opts...)
	if err := errors.Join(p.secretsErr, p.confirmErr, p.appsErr, p.domainsErr); err != nil {
		return nil, err
	}
	return p, nil
}

// Tier is the session's permission tier.
func (p *Policy) Tier() action.Tier { return p.tier }

// Request is what the executor knows of an action when it asks for a
// permit.
type Request struct {
	// Action is the action as it will run.
	Action action.Action
	// Target cites the resolved node ("button \"Save\" e12"), or "".
	Target string
	// Downloads is the session's downloads folder, where uploads at act
	// come from unless the policy names another (Files).
	Downloads string
	// Node is the resolved target and Page the snapshot it is in, for
	// rules on what is acted on (Confirm, the frames Domains refuses); nil
	// for none. To is a drag's drop target, or nil.
	Node *tree.Node
	To   *tree.Node
	Page *tree.Snapshot
}

// Permit checks the request against the session's rules and returns a
// permit for exactly this action, or an error wrapping ErrDenied that says
// what the action needs.
func (p *Policy) Permit(ctx context.Context, r Request) (*Permit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := r.Action
	need := a.Tier()
	if need > p.tier {
		what := string(a.Kind)
		if r.Target != "" {
			what += " " + r.Target
		}
		why := ""
		if a.SavesOutside() {
			// The path the agent gave is not repeated: its links resolved,
			// it could tell where they lead.
			why = " to write a file outside the downloads folder"
		}
		return nil, fmt.Errorf("%s needs the %s tier%s; this session allows %s (--allow %s): %w", what, need, why, p.tier, need, ErrDenied)
	}
	if err := p.denied(a, r); err != nil {
		return nil, err
	}
	if err := p.checkMiddlePaste(r); err != nil { // paste.go
		return nil, err
	}
	if err := p.checkChooser(r); err != nil { // chooser.go
		return nil, err
	}
	if err := p.checkBrowserUI(r); err != nil { // browserui.go
		return nil, err
	}
	if err := p.check(a, r.Downloads); err != nil {
		return nil, err
	}
	// Where the browser may go is not a tier matter: it holds at every
	// tier, sensitive included.
	if err := p.checkDomains(r); err != nil {
		return nil, err
	}
	permit := &Permit{kind: a.Kind, tier: need, policy: p}
	switch {
	case p.tier >= action.Sensitive:
	case a.Kind == action.Upload:
		permit.files = []string{p.filesDir(r.Downloads)}
	case a.Kind == action.OpenApp && !slices.ContainsFunc(p.apps, func(pat string) bool { return allows(pat, a.Command) }):
		permit.files = p.appDirs(r.Downloads)
	}
	if n := p.confirmed(r); a.Acts() && n != nil {
		what := string(a.Kind)
		if r.Target != "" {
			what += " " + r.Target
		}
		permit.confirm = fmt.Sprintf("canopy: allow %s?", what)
		if n != r.Node {
			permit.confirm = fmt.Sprintf("canopy: allow %s? It reaches %s.", what, tree.Line(n))
		}
	}
	return permit, nil
}

// filesDir is the folder uploads come from at act: Files, else the
// session's downloads folder.
func (p *Policy) filesDir(downloads string) string {
	if p.files != "" || downloads == "" {
		return p.files
	}
	return filepath.Clean(downloads)
}

// check applies the rules on what an action touches, below the sensitive
// tier (which allows any file and program); a batch's steps each.
func (p *Policy) check(a action.Action, downloads string) error {
	if p.tier >= action.Sensitive {
		return nil
	}
	switch a.Kind {
	case action.Upload:
		return p.checkUpload(a.Paths, downloads)
	case action.OpenApp:
		return p.checkApp(a.Command, a.Args, downloads)
	case action.Batch:
		for i, s := range a.Steps {
			if err := p.check(s, downloads); err != nil {
				return fmt.Errorf("step %d: %w", i+1, err)
			}
		}
	}
	return nil
}

// checkUpload allows files inside the files folder only, judged on the
// path's text (cleaned, made absolute): nothing is looked up on disk, so a
// refusal says nothing about the file.
func (p *Policy) checkUpload(paths []string, downloads string) error {
	dir := p.filesDir(downloads)
	for _, path := range paths {
		abs, err := filepath.Abs(path)
		if err == nil && dir != "" && strings.HasPrefix(abs, dir+string(filepath.Separator)) {
			continue
		}
		from := "the session's downloads folder"
		if dir != "" {
			from = dir
		}
		return fmt.Errorf("upload of %s needs the sensitive tier: at %s, files come only from %s (--files DIR): %w", path, p.tier, from, ErrDenied)
	}
	return nil
}

// checkApp allows the programs Apps names or matches, with any arguments,
// and the programs of installed desktop applications that run no code
// they are given, with the URLs and files a desktop would hand them
// (programs.go).
func (p *Policy) checkApp(command string, args []string, downloads string) error {
	if slices.ContainsFunc(p.apps, func(a string) bool { return allows(a, command) }) {
		return nil
	}
	p.once.Do(func() { p.desktop, p.shells = desktopPrograms(), shells() })
	prog, ok := p.desktop[command]
	if !ok {
		prog, ok = p.desktop[resolveProgram(command)]
	}
	if !ok {
		return fmt.Errorf("open_app %s needs the sensitive tier: at %s, open_app starts installed desktop applications and the programs --apps names (--allow sensitive, or --apps NAME): %w", command, p.tier, ErrDenied)
	}
	return p.checkProgram(command, args, prog, p.appDirs(downloads))
}

// Permit is the proof that the policy allowed one action. Sources take it
// in their acting methods and call Allows before acting.
type Permit struct {
	kind    action.Kind
	tier    action.Tier
	policy  *Policy
	files   []string // an upload's or open_app's files must lie in one of these (none: anywhere)
	confirm string   // the question the user must say yes to, or ""
}

// Within checks, with symlinks resolved now, that the files of an upload
// or the file arguments of open_app still lie in the folders the permit
// allows them from: a link in the folder that leads out of it is refused.
// The source calls it right before it reads the files or starts the
// program; at the sensitive tier every path passes.
func (p *Permit) Within(paths []string) error {
	if p == nil || len(p.files) == 0 {
		return nil
	}
	var dirs []string
	for _, d := range p.files {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		dirs = append(dirs, d)
	}
	for _, path := range paths {
		abs, err := filepath.Abs(path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", p.kind, path, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue // missing: the source says so
		}
		if !inside(real, dirs) {
			return fmt.Errorf("%s of %s needs the sensitive tier: it leads out of %s (--allow sensitive): %w", p.kind, path, where(p.files), ErrDenied)
		}
	}
	return nil
}

// SavesAnywhere reports whether the action the permit was issued for may
// save its file outside the downloads folder: the session allows the
// sensitive tier. The writer (package save) asks it when it finds the
// file's place outside the folder, which it may by then be even where the
// gate judged it inside (a folder on the way replaced by a link).
func (p *Permit) SavesAnywhere() bool {
	return p != nil && p.policy != nil && p.policy.tier >= action.Sensitive
}

// PastesAnything reports whether the action may paste whatever the
// clipboard holds, another program's text included (the user's, copied
// before the session): reading the clipboard needs the sensitive tier, and
// a paste into a page is a read the page then holds. Below it, a source
// pastes only text canopy or the agent's own copy put there.
func (p *Permit) PastesAnything() bool {
	return p != nil && p.policy != nil && p.policy.tier >= action.Sensitive
}

// Allows reports whether this permit was issued for an action of kind. A
// nil permit, or one not made by a Policy, allows nothing.
func (p *Permit) Allows(kind action.Kind) error {
	if p == nil || p.policy == nil {
		return fmt.Errorf("%s: no permit (actions must go through the executor): %w", kind, ErrDenied)
	}
	if p.kind != kind {
		return fmt.Errorf("%s: the permit was issued for %s: %w", kind, p.kind, ErrDenied)
	}
	return nil
}
