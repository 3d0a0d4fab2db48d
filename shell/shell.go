// Package shell is canopy's shell: the one tree as a filesystem
// (docs/shell.md). A tab is a folder, a node is a folder named by its
// role and name (`form:Login`), look-alike siblings by their ref
// (`button:Edit@e14`), so a path stays the same when the page inserts
// content above it.
//
// The shell reads with ls, cd, pwd, tree, cat, grep, find and text, acts
// with every action of the action table by its step name (click, type,
// submit, back…), and composes with ';', newlines, pipes into grep, head,
// tail and wc, `for … do … done`, `each tab` and saved scripts. Every
// command that reads or acts goes through the session's executor
// ([session.Session.Run] or [session.Session.Model]), so the tier and the
// allowlists apply to every leaf action, inside loops and scripts too.
//
// One interpreter serves the REPL (`canopy sh`), one-shot runs (`canopy sh
// -c`), script files (`canopy sh FILE`) and the MCP `shell` tool.
package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/canopy-dev/canopy/session"
)

// Defaults of [Options].
const (
	DefaultMaxItems    = 1000
	DefaultMaxCommands = 10000
	DefaultMaxDepth    = 16
)

// Options bound what one run may do. Zero values take the defaults.
type Options struct {
	// MaxItems bounds a for loop's list: a longer one is refused before
	// the loop starts, so nothing half-runs.
	MaxItems int
	// MaxCommands bounds the commands one Run runs, loops and scripts
	// included.
	MaxCommands int
	// MaxDepth bounds how deep scripts may call scripts.
	MaxDepth int
	// MaxOutput caps the bytes one Run prints; past it the output is cut
	// with a line that says so (default session.DefaultMaxReply).
	MaxOutput int
}

func (o Options) withDefaults() Options {
	if o.MaxItems <= 0 {
		o.MaxItems = DefaultMaxItems
	}
	if o.MaxCommands <= 0 {
		o.MaxCommands = DefaultMaxCommands
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = session.DefaultMaxReply
	}
	return o
}

// Shell is one interpreter over one session: its working folder and its
// saved scripts live as long as it does. Runs take turns.
type Shell struct {
	sess *session.Session
	opt  Options

	mu sync.Mutex
	// cwd is the working folder, an absolute path; "" is the default, the
	// active tab's root (the root folder on the desktop).
	cwd string
	// cwdRef is the working folder's node, so the folder follows it when
	// the page renames it.
	cwdRef  string
	scripts map[string]string // saved scripts by name
}

// New returns a shell over sess, in the root folder.
func New(sess *session.Session, opt Options) *Shell {
	return &Shell{sess: sess, opt: opt.withDefaults(), scripts: map[string]string{}}
}

// Cwd returns the working folder cd set; "" before any, which stands for
// the active tab's root (the root folder on the desktop).
func (sh *Shell) Cwd() string {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.cwd
}

// Error is a command that failed: the line it is on, its text, and why.
// A run stops at the first one.
type Error struct {
	Line int
	Text string
	Err  error
}

func (e *Error) Error() string {
	text, _, more := strings.Cut(e.Text, "\n")
	if more {
		text += " …"
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, text, oneLine(e.Err.Error()))
}

func (e *Error) Unwrap() error { return e.Err }

// Run runs src — commands separated by ';' or newlines — writing what
// they print to out. It stops at the first command that fails and returns
// an *Error naming its line; what ran before it stays done. A script that
// cannot be read returns a *SyntaxError and runs nothing.
func (sh *Shell) Run(ctx context.Context, src string, out io.Writer) error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	l, err := parse(src, 1)
	if err != nil {
		return err
	}
	w := &capped{w: out, left: sh.opt.MaxOutput}
	st := &state{steps: sh.opt.MaxCommands}
	err = sh.list(ctx, l, &frame{vars: map[string]string{}}, st, w)
	w.close()
	return err
}

// state is what one Run counts across its loops and scripts.
type state struct {
	steps int // commands it may still run
}

// frame is a loop's or script's variables: loop variables by name, a
// script's arguments as $1…, and the scripts running (to refuse one that
// calls itself).
type frame struct {
	vars    map[string]string
	args    []string
	scripts []string
}

// list runs a list's pipelines in order; the first error stops it.
func (sh *Shell) list(ctx context.Context, l *list, fr *frame, st *state, out io.Writer) error {
	for _, pl := range l.items {
		if err := ctx.Err(); err != nil {
			return &Error{Line: pl.line, Text: pl.text, Err: fmt.Errorf("stopped: %w", err)}
		}
		if err := sh.pipeline(ctx, pl, fr, st, out); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return err // a loop's or script's command, named where it failed
			}
			return &Error{Line: pl.line, Text: pl.text, Err: err}
		}
	}
	return nil
}

// pipeline runs commands joined by '|': each one's output is the next
// one's input; the last one writes to out.
func (sh *Shell) pipeline(ctx context.Context, pl *pipeline, fr *frame, st *state, out io.Writer) error {
	var in *string
	for i, c := range pl.cmds {
		w := out
		var buf strings.Builder
		if i < len(pl.cmds)-1 {
			w = &buf
		}
		if err := sh.command(ctx, c, fr, st, in, w); err != nil {
			return err
		}
		s := buf.String()
		in = &s
	}
	return nil
}

// command runs one command with in as its input (nil when nothing is
// piped into it).
func (sh *Shell) command(ctx context.Context, c command, fr *frame, st *state, in *string, out io.Writer) error {
	if st.steps <= 0 {
		return fmt.Errorf("stopped after %d commands (the limit of one run): split the work into several runs", sh.opt.MaxCommands)
	}
	st.steps--
	switch c := c.(type) {
	case *forLoop:
		return sh.forLoop(ctx, c, fr, st, out)
	case *eachTab:
		return sh.eachTab(ctx, c, fr, st, out)
	case *scriptSave:
		return sh.saveScript(c.name, c.source)
	case *simple:
		if expanded(c.words[0]) {
			// What a variable or $(…) gave is data: page text never
			// names the command to run.
			return fmt.Errorf("a command's name is written as it is, not taken from a variable or $(…): a value is only ever an argument")
		}
		args, err := sh.expand(ctx, c.words, fr, st)
		if err != nil {
			return err
		}
		if len(args) == 0 {
			return nil
		}
		cl := &call{sh: sh, ctx: ctx, fr: fr, st: st, name: args[0].val, args: args[1:], in: in, out: out}
		return cl.run()
	}
	return fmt.Errorf("unknown command %T", c)
}

// expanded reports whether a word holds a variable or a $(…).
func expanded(w word) bool {
	for _, p := range w.parts {
		if p.kind != literal {
			return true
		}
	}
	return false
}

// forLoop runs its body once per item, with the item in its variable.
func (sh *Shell) forLoop(ctx context.Context, f *forLoop, fr *frame, st *state, out io.Writer) error {
	items, err := sh.expand(ctx, f.items, fr, st)
	if err != nil {
		return err
	}
	if len(items) > sh.opt.MaxItems {
		return fmt.Errorf("for %s: %d items is over the limit of %d; narrow the list first (… | head -n %d)", f.name, len(items), sh.opt.MaxItems, sh.opt.MaxItems)
	}
	inner := fr.with(f.name)
	for _, it := range items {
		inner.vars[f.name] = it.val
		if err := sh.list(ctx, f.body, inner, st, out); err != nil {
			return err
		}
	}
	return nil
}

// with returns a copy of the frame whose variables may be set without
// touching the caller's.
func (fr *frame) with(name string) *frame {
	vars := make(map[string]string, len(fr.vars)+1)
	for k, v := range fr.vars {
		vars[k] = v
	}
	return &frame{vars: vars, args: fr.args, scripts: fr.scripts}
}

// capped is a writer that stops after left bytes and then says so once.
type capped struct {
	w    io.Writer
	left int
	cut  int
}

func (c *capped) Write(p []byte) (int, error) {
	if c.left <= 0 {
		c.cut += len(p)
		return len(p), nil
	}
	n := len(p)
	if n > c.left {
		c.cut += n - c.left
		p = p[:c.left]
	}
	c.left -= len(p)
	if _, err := c.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// close adds the line that says output was cut.
func (c *capped) close() {
	if c.cut > 0 {
		fmt.Fprintf(c.w, "\n… %d more bytes of output not shown (narrow it: | head, | grep, or a deeper path)\n", c.cut)
	}
}
