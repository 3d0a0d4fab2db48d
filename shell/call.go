package shell

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/canopy-dev/canopy/action"
)

// call is one simple command being run: its name, its expanded
// arguments, its input (nil when nothing is piped in) and its output.
type call struct {
	sh   *Shell
	ctx  context.Context
	fr   *frame
	st   *state
	name string
	args []arg
	in   *string
	out  io.Writer
	v    *view // the workspace, once read
}

// builtin is a command of the shell's own.
type builtin struct {
	run func(c *call) error
	// usage is the command's synopsis, for help and errors.
	usage string
	doc   string
}

// builtins are the shell's own commands; every other command is an
// action of the action table, by its step name.
var builtins map[string]builtin

func init() {
	builtins = map[string]builtin{
		"ls":     {(*call).ls, "ls [-l] [PATH…]", "list a folder: one name per line, / after those with children; -l prints each as a tree line"},
		"cd":     {(*call).cd, "cd [PATH]", "change the working folder (cd /tab2 switches tabs; cd alone goes to the tab's root)"},
		"pwd":    {(*call).pwd, "pwd", "print the working folder"},
		"tree":   {(*call).tree, "tree [DEPTH] [PATH]", "print a folder as tree text, DEPTH levels deep"},
		"cat":    {(*call).cat, "cat PATH…", "every property of a node: role, name, description, value, states, href, id, box"},
		"grep":   {(*call).grep, "grep [-r] [-i] [-v] [-c] [-e PATTERN] PATTERN [PATH]", "filter lines piped in, or list the nodes of a folder (-r: at any depth) whose line matches; -c counts them"},
		"find":   {(*call).find, "find [PATH] SELECTOR | find at X,Y", "list the nodes under PATH a selector matches, with refs; or the node at a point"},
		"text":   {(*call).text, "text [PATH]", "the text of a folder, as markdown"},
		"head":   {(*call).head, "head [-n N]", "the first N lines piped in (10)"},
		"tail":   {(*call).tail, "tail [-n N]", "the last N lines piped in (10)"},
		"wc":     {(*call).wc, "wc [-l|-w|-c]", "count the lines, words or bytes piped in"},
		"echo":   {(*call).echo, "echo WORD…", "print words"},
		"script": {(*call).script, "script save NAME do …; done | run NAME ARG… | list | show NAME | rm NAME", "keep commands under a name and run them with arguments ($1…)"},
		"help":   {(*call).help, "help [COMMAND]", "list the commands, or say what one does"},
		"set":    {(*call).set, "set -e", "accepted: the shell always stops at the first error"},
	}
}

// run dispatches the command.
func (c *call) run() error {
	if b, ok := builtins[c.name]; ok {
		return b.run(c)
	}
	if a, ok := action.Named(c.name); ok {
		return c.act(a)
	}
	return fmt.Errorf("unknown command %q; did you mean %s? (help lists them all)", c.name, strings.Join(closest(c.name, commandNames(), 3), ", "))
}

// commandNames lists every command: the builtins and the actions.
func commandNames() []string {
	var out []string
	for n := range builtins {
		out = append(out, n)
	}
	out = append(out, action.StepNames()...)
	sort.Strings(out)
	return out
}

// view reads the workspace once per command.
func (c *call) view() (*view, error) {
	if c.v == nil {
		v, err := c.sh.read(c.ctx)
		if err != nil {
			return nil, err
		}
		c.v = v
	}
	return c.v, nil
}

// flags splits leading -x flags off the arguments. known lists the flags
// the command takes; those that take a value (like -n) end in '='.
func (c *call) flags(known ...string) (map[string]string, []arg, error) {
	got := map[string]string{}
	args := c.args
	for len(args) > 0 && !args[0].quoted && !args[0].data && strings.HasPrefix(args[0].val, "-") && len(args[0].val) > 1 {
		f := args[0].val
		args = args[1:]
		if f == "--" {
			break
		}
		matched := false
		for _, k := range known {
			name, takes := strings.CutSuffix(k, "=")
			switch {
			case takes && f == name:
				if len(args) == 0 {
					return nil, nil, fmt.Errorf("%s needs a value (usage: %s)", f, builtins[c.name].usage)
				}
				got[name], args, matched = args[0].val, args[1:], true
			case takes && strings.HasPrefix(f, name) && len(f) > len(name):
				got[name], matched = f[len(name):], true // -n5
			case !takes && f == name:
				got[name], matched = "", true
			}
		}
		if !matched {
			// Combined short flags: -ri.
			all := true
			for _, r := range f[1:] {
				if !contains(known, "-"+string(r)) {
					all = false
				}
			}
			if !all {
				return nil, nil, fmt.Errorf("unknown flag %s (usage: %s)", f, builtins[c.name].usage)
			}
			for _, r := range f[1:] {
				got["-"+string(r)] = ""
			}
		}
	}
	return got, args, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// vals are the arguments' values.
func vals(args []arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.val
	}
	return out
}

// input returns the lines piped in, or an error naming the command when
// nothing is.
func (c *call) input() ([]string, error) {
	if c.in == nil {
		return nil, fmt.Errorf("%s reads the lines piped into it: ls | %s", c.name, c.name)
	}
	s := strings.TrimSuffix(*c.in, "\n")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}

// println writes lines to the output, each ending in a newline and
// redacted: the shell prints properties of the session's trees (redacted
// as they entered it), and nothing it prints shows a credential the
// session knows.
func (c *call) println(lines ...string) {
	for _, l := range lines {
		io.WriteString(c.out, c.sh.sess.Redacted(l))
		io.WriteString(c.out, "\n")
	}
}

func (c *call) help() error {
	if len(c.args) > 0 {
		name := c.args[0].val
		if b, ok := builtins[name]; ok {
			c.println(b.usage, "  "+b.doc)
			return nil
		}
		if a, ok := action.Named(name); ok {
			spec, _ := action.SpecOf(a.Kind)
			c.println(spec.Syntax, "  "+spec.Doc, "  TARGET is a path, a ref or a selector (docs/selectors.md); answers with what changed")
			return nil
		}
		return fmt.Errorf("no command %q", name)
	}
	var names []string
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	c.println("Looking and composing:")
	for _, n := range names {
		c.println("  " + builtins[n].usage)
	}
	c.println("Acting (each answers with what changed; TARGET is a path, a ref or a selector):")
	c.println("  " + strings.Join(action.StepNames(), " "))
	c.println("Compose with ; or newlines (the first error stops), | into grep head tail wc,",
		"for x in …; do …; done, each tab do …; done. help COMMAND says more.")
	return nil
}

func (c *call) set() error {
	for _, a := range c.args {
		if a.val != "-e" {
			return fmt.Errorf("set takes only -e: the shell always stops at the first error")
		}
	}
	return nil
}

func (c *call) echo() error {
	c.println(strings.Join(vals(c.args), " "))
	return nil
}
