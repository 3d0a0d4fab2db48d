package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// Apps gives the rules on desktop applications (--apps), one pattern
// each:
//
//   - "zenity", "/opt/tool/bin/tool": a program open_app may start at the
//     act tier besides the installed desktop applications, with any
//     arguments; by name (found on $PATH) or by path.
//   - "gtk*-widget-factory": the same for every program whose name (or,
//     when the pattern has a "/", whose path) the glob matches, in the
//     syntax of path.Match.
//   - "!gnome-terminal", "!xterm", "!gtk4-*": an application denied at
//     every tier, sensitive included. open_app refuses to start a program
//     the glob matches (by the name or path as given, or the file it leads
//     to on $PATH), and every action on a node inside one of its windows
//     is refused: the application is found in the snapshot by its name on
//     the desktop, which for most programs is the program's name. Denied
//     names match case-insensitively; a deny wins over an allow.
//
// A pattern that does not parse makes Open fail, naming it.
func Apps(patterns ...string) Option {
	return func(p *Policy) {
		for _, raw := range patterns {
			pat := strings.TrimSpace(raw)
			deny := strings.HasPrefix(pat, "!")
			if deny {
				pat = strings.TrimSpace(pat[1:])
			}
			var err error
			switch {
			case pat == "" && !deny:
				continue
			case pat == "":
				err = fmt.Errorf("--apps %q: a ! must be followed by the program to deny", raw)
			default:
				if _, merr := path.Match(pat, ""); merr != nil {
					err = fmt.Errorf("--apps %q is not a valid pattern (globs: * ? [a-z]): %w", raw, merr)
				}
			}
			if err != nil {
				if p.appsErr == nil {
					p.appsErr = err
				}
				continue
			}
			if deny {
				p.deny = append(p.deny, strings.ToLower(pat))
			} else {
				p.apps = append(p.apps, pat)
			}
		}
	}
}

// isGlob reports whether a pattern has glob characters.
func isGlob(pattern string) bool { return strings.ContainsAny(pattern, `*?[\`) }

// allows reports whether an allow pattern of Apps names command: the same
// program by name or path, or, for a glob, a program it matches.
func allows(pattern, command string) bool {
	if isGlob(pattern) {
		return globsProgram(pattern, command, false)
	}
	return sameProgram(pattern, command)
}

// globsProgram reports whether the glob matches the program command: its
// path, as given or as it resolves on $PATH, when the pattern has a "/";
// else its name, as given or of the file it resolves to. fold compares in
// lower case (pattern already is).
func globsProgram(pattern, command string, fold bool) bool {
	resolved := resolveProgram(command)
	var names []string
	if strings.Contains(pattern, "/") {
		if strings.Contains(command, "/") {
			if abs, err := filepath.Abs(command); err == nil {
				names = append(names, abs)
			}
		}
		names = append(names, resolved)
	} else {
		names = append(names, filepath.Base(command))
		if resolved != "" {
			names = append(names, filepath.Base(resolved))
		}
	}
	for _, n := range names {
		if fold {
			n = strings.ToLower(n)
		}
		if ok, _ := path.Match(pattern, n); ok && n != "" {
			return true
		}
	}
	return false
}

// denied refuses, at every tier, open_app of a program --apps denies (a
// batch's steps each), and an action on a node in a window of an
// application it denies: the target, or for keys typed with no target the
// focused nodes, which is where they go.
func (p *Policy) denied(a action.Action, r Request) error {
	if len(p.deny) == 0 {
		return nil
	}
	if err := p.deniedProgram(a); err != nil {
		return err
	}
	if !a.Acts() || r.Page == nil {
		return nil
	}
	// The nodes the action reaches: its target, the focused node for keys,
	// the node under the pointer, a drag's drop target (effect.go).
	for _, n := range receivers(r) {
		if n == nil {
			continue
		}
		app := appOf(r.Page.Root, n)
		if app == nil {
			continue
		}
		if pat := p.denies(app.Name); pat != "" {
			what := string(a.Kind)
			switch {
			case n == r.To && n != r.Node:
				what += " to " + tree.Line(n)
			case r.Target != "":
				what += " " + r.Target
			case r.Node == nil:
				what += " (the keys go to " + tree.Line(n) + ")"
			}
			return fmt.Errorf("%s is refused: it is in a window of %s, an application --apps denies (!%s), at every tier: %w", what, app.Name, pat, ErrDenied)
		}
	}
	return nil
}

// deniedProgram refuses open_app of a program a deny pattern matches.
func (p *Policy) deniedProgram(a action.Action) error {
	switch a.Kind {
	case action.OpenApp:
		for _, pat := range p.deny {
			if globsProgram(pat, a.Command, true) || !isGlob(pat) && sameProgram(pat, a.Command) {
				return fmt.Errorf("open_app %s is refused: --apps denies it (!%s), at every tier: %w", a.Command, pat, ErrDenied)
			}
		}
	case action.Batch:
		for i, s := range a.Steps {
			if err := p.deniedProgram(s); err != nil {
				return fmt.Errorf("step %d: %w", i+1, err)
			}
		}
	}
	return nil
}

// DeniedApp returns the --apps deny pattern that matches one of the names
// an application goes by (its X window's class, its process's name), or
// "". A source judges with it the input it sends by the X server, which
// reaches windows the accessibility tree may not show.
func (p *Permit) DeniedApp(names ...string) string {
	if p == nil || p.policy == nil {
		return ""
	}
	for _, n := range names {
		if pat := p.policy.denies(n); pat != "" {
			return pat
		}
	}
	return ""
}

// denies returns the deny pattern that matches an application's name on
// the desktop, or "". A pattern with a path matches by its last element.
func (p *Policy) denies(app string) string {
	name := strings.ToLower(strings.TrimSpace(app))
	if name == "" {
		return ""
	}
	for _, pat := range p.deny {
		if ok, _ := path.Match(path.Base(pat), name); ok {
			return pat
		}
	}
	return ""
}

// appOf is the application node that holds n in the tree under root (n
// itself when it is one), or nil.
func appOf(root, n *tree.Node) *tree.Node { return enclosing(root, n, "application") }

// enclosing is the nearest node of role on the way from root down to n (n
// itself when it has that role), or nil when there is none or n is not
// under root.
func enclosing(root, n *tree.Node, role string) *tree.Node {
	var stack []*tree.Node
	var found *tree.Node
	var walk func(c *tree.Node) bool
	walk = func(c *tree.Node) bool {
		stack = append(stack, c)
		if c == n {
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].Role == role {
					found = stack[i]
					break
				}
			}
			return true
		}
		for _, k := range c.Children {
			if walk(k) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		return false
	}
	if root != nil && n != nil {
		walk(root)
	}
	return found
}

// desktopPrograms lists the programs of the installed desktop applications
// and what their entries say of them (programs.go): the first word of each
// .desktop entry's Exec line (XDG desktop entries in
// $XDG_DATA_HOME/applications and each $XDG_DATA_DIRS/applications), by the
// name as written and by the path it resolves to on $PATH. Hidden entries
// and entries that are not applications are left out.
func desktopPrograms() map[string]program {
	progs := map[string]program{}
	for _, dir := range applicationDirs() {
		files, _ := filepath.Glob(filepath.Join(dir, "*.desktop"))
		for _, f := range files {
			e, ok := readEntry(f)
			if !ok {
				continue
			}
			progs[e.program] = progs[e.program].merge(e)
			if r := resolveProgram(e.program); r != "" {
				progs[r] = progs[r].merge(e)
			}
		}
	}
	return progs
}

// applicationDirs are the folders desktop entries live in, by the XDG base
// directory spec.
func applicationDirs() []string {
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		if home, err := os.UserHomeDir(); err == nil {
			data = filepath.Join(home, ".local", "share")
		}
	}
	dirs := []string{}
	if data != "" {
		dirs = append(dirs, filepath.Join(data, "applications"))
	}
	shared := os.Getenv("XDG_DATA_DIRS")
	if shared == "" {
		shared = "/usr/local/share:/usr/share"
	}
	for _, d := range filepath.SplitList(shared) {
		if d != "" {
			dirs = append(dirs, filepath.Join(d, "applications"))
		}
	}
	return dirs
}

// execProgram is the program of an Exec value: its first word, quotes
// removed, past an "env VAR=value" prefix.
func execProgram(exec string) string {
	words := strings.Fields(exec)
	for len(words) > 0 {
		w := strings.Trim(words[0], `"'`)
		switch {
		case filepath.Base(w) == "env" || strings.Contains(w, "=") && !strings.Contains(w, "/"):
			words = words[1:]
		default:
			return w
		}
	}
	return ""
}

// resolveProgram is where a program name leads on $PATH (symlinks
// followed), or "".
func resolveProgram(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// sameProgram reports whether two names start the same program: equal, or
// leading to the same file on $PATH.
func sameProgram(a, b string) bool {
	if a == b {
		return true
	}
	ra := resolveProgram(a)
	return ra != "" && ra == resolveProgram(b)
}
