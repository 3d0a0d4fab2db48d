package shell

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/canopy-dev/canopy/action"
)

// script keeps and runs named scripts: `script save NAME do …; done` (or
// `script save NAME 'commands'`), `script run NAME ARG…`, `script list`,
// `script show NAME`, `script rm NAME`.
func (c *call) script() error {
	if len(c.args) == 0 {
		return fmt.Errorf("usage: %s", builtins["script"].usage)
	}
	sub, args := c.args[0].val, vals(c.args[1:])
	switch sub {
	case "list":
		names := make([]string, 0, len(c.sh.scripts))
		for n := range c.sh.scripts {
			names = append(names, n)
		}
		sort.Strings(names)
		c.println(names...)
		return nil
	case "save":
		if len(args) != 2 {
			return fmt.Errorf("script save NAME 'commands', or script save NAME do …; done")
		}
		if c.args[1].data || c.args[2].data {
			return fmt.Errorf("script save takes its name and commands as written, not from a variable or $(…): a value is never run as commands")
		}
		return c.sh.saveScript(args[0], args[1])
	}
	if len(args) == 0 {
		return fmt.Errorf("script %s needs a script's name", sub)
	}
	body, ok := c.sh.scripts[args[0]]
	if !ok {
		return c.noScript(args[0])
	}
	switch sub {
	case "show":
		c.println(body)
		return nil
	case "rm":
		delete(c.sh.scripts, args[0])
		return nil
	case "run":
		return c.sh.runScript(c.ctx, args[0], body, args[1:], c.fr, c.st, c.out)
	}
	return fmt.Errorf("script takes save, run, list, show or rm, not %q", sub)
}

// noScript says a script is not saved, with the names that are.
func (c *call) noScript(name string) error {
	var names []string
	for n := range c.sh.scripts {
		names = append(names, n)
	}
	if len(names) == 0 {
		return fmt.Errorf("no script %q: none is saved (script save NAME do …; done)", name)
	}
	sort.Strings(names)
	return fmt.Errorf("no script %q; saved: %s", name, strings.Join(names, ", "))
}

// saveScript keeps body under name once it parses.
func (sh *Shell) saveScript(name, body string) error {
	if !validName(strings.ReplaceAll(name, "-", "_")) {
		return fmt.Errorf("a script's name is letters, digits, - and _, not %q", name)
	}
	if _, ok := builtins[name]; ok {
		return fmt.Errorf("%q is a command; name the script otherwise", name)
	}
	if _, ok := action.Named(name); ok {
		return fmt.Errorf("%q is an action; name the script otherwise", name)
	}
	if _, err := parse(body, 1); err != nil {
		return fmt.Errorf("script %s: %w", name, err)
	}
	sh.scripts[name] = body
	return nil
}

// runScript runs a saved script with args as $1…. A script that is
// already running (it calls itself, or calls one that calls it back) is
// refused: the loop would never end.
func (sh *Shell) runScript(ctx context.Context, name, body string, args []string, fr *frame, st *state, out io.Writer) error {
	for _, s := range fr.scripts {
		if s == name {
			return fmt.Errorf("script %s calls itself (%s → %s): a script may not run one that is running", name, strings.Join(fr.scripts, " → "), name)
		}
	}
	if len(fr.scripts) >= sh.opt.MaxDepth {
		return fmt.Errorf("scripts nested %d deep (the limit)", sh.opt.MaxDepth)
	}
	l, err := parse(body, 1)
	if err != nil {
		return err
	}
	inner := &frame{vars: map[string]string{}, args: args, scripts: append(append([]string(nil), fr.scripts...), name)}
	if err := sh.list(ctx, l, inner, st, out); err != nil {
		return fmt.Errorf("in script %s, %w", name, err)
	}
	return nil
}

// eachTab runs the body once in every tab, switching to each through the
// executor, and comes back to the tab it started in. Each tab's output
// starts with its tab line.
func (sh *Shell) eachTab(ctx context.Context, e *eachTab, fr *frame, st *state, out io.Writer) error {
	v, err := sh.read(ctx)
	if err != nil {
		return err
	}
	tabs, err := v.tabList()
	if err != nil {
		return err
	}
	if len(tabs) > sh.opt.MaxItems {
		return fmt.Errorf("each tab: %d tabs is over the limit of %d", len(tabs), sh.opt.MaxItems)
	}
	start, cwd, cwdRef := v.active, sh.cwd, sh.cwdRef
	active := start
	var runErr error
	for _, t := range tabs {
		if t.n != active {
			if _, err := sh.sess.Run(ctx, action.Action{Kind: action.Tabs, Nav: "switch", Tab: t.n}); err != nil {
				runErr = err
				break
			}
			active = t.n
		}
		sh.cwd, sh.cwdRef = "/tab"+strconv.Itoa(t.n), ""
		fmt.Fprintln(out, strings.TrimSuffix(t.line, " current"))
		if runErr = sh.list(ctx, e.body, fr, st, out); runErr != nil {
			break
		}
	}
	if active != start && start > 0 {
		if _, err := sh.sess.Run(ctx, action.Action{Kind: action.Tabs, Nav: "switch", Tab: start}); err != nil && runErr == nil {
			runErr = err
		}
	}
	sh.cwd, sh.cwdRef = cwd, cwdRef
	return runErr
}
