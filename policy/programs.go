package policy

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// What open_app may start at the act tier is decided from what the
// program does with what it is given, as its desktop entries describe it,
// not from the look of its arguments:
//
//   - A program that runs what it is given — a shell, a terminal, a
//     console program (an interpreter such as python3, an editor such as
//     vim whose "+!cmd" is a command), a launcher of executables — is
//     never started at act: whatever file or word it is handed, a page
//     could have written it.
//   - Any other installed desktop application is given only what a
//     desktop would hand it: http(s) URLs (which --domains judges, at
//     every tier) and files from the session's downloads folder or the
//     --files folder. A file elsewhere needs the sensitive tier, as a
//     file: URL does; a word that is neither (an option, "+cmd") too.
//   - A web browser given a file would open it as a file: URL, running
//     its scripts: that needs the sensitive tier too.
//
// The programs --apps names are the exceptions, with any arguments.

// program is what the installed desktop entries say of a program.
type program struct {
	gui     bool // some entry runs it without a terminal (Terminal=false)
	runner  bool // an entry is a terminal emulator, or opens executables
	browser bool // an entry handles http or https URLs
}

// runsExecutables are the MIME types of files an application that opens
// them executes: a launcher of programs, not a viewer or editor of them.
var runsExecutables = []string{
	"application/x-executable", "application/x-sharedlib", "application/x-ms-dos-executable",
	"application/x-msdownload", "application/vnd.microsoft.portable-executable",
	"application/x-msi", "application/x-desktop", "application/x-java-archive",
	"application/x-java-jnlp-file", "application/x-appimage",
}

// merge folds one desktop entry into what is known of its program.
func (p program) merge(e entry) program {
	p.gui = p.gui || !e.terminal
	p.runner = p.runner || slices.Contains(e.categories, "TerminalEmulator") ||
		slices.ContainsFunc(e.mimeTypes, func(m string) bool { return slices.Contains(runsExecutables, m) })
	p.browser = p.browser || slices.Contains(e.mimeTypes, "x-scheme-handler/http") || slices.Contains(e.mimeTypes, "x-scheme-handler/https")
	return p
}

// entry is what one desktop entry says: the program it starts and how.
type entry struct {
	program    string
	terminal   bool
	categories []string
	mimeTypes  []string
}

// readEntry reads a desktop entry's [Desktop Entry] group; ok is false
// when it is hidden, not an application, or starts no program.
func readEntry(path string) (e entry, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return e, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, app := false, false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "[Desktop Entry]"
			continue
		}
		k, v, found := strings.Cut(line, "=")
		if !in || !found {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "Type":
			app = v == "Application"
		case "Hidden":
			if v == "true" {
				return e, false
			}
		case "Exec":
			e.program = execProgram(v)
		case "Terminal":
			e.terminal = v == "true"
		case "Categories":
			e.categories = splitList(v)
		case "MimeType":
			e.mimeTypes = splitList(v)
		}
	}
	return e, app && e.program != ""
}

// splitList splits a desktop entry's ";"-separated list.
func splitList(v string) []string {
	return slices.DeleteFunc(strings.Split(v, ";"), func(s string) bool { return s == "" })
}

// shells are the login shells the system lists (/etc/shells), by path
// and by name.
func shells() map[string]bool {
	out := map[string]bool{}
	f, err := os.Open("/etc/shells")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out[line] = true
		out[filepath.Base(line)] = true
		if r, err := filepath.EvalSymlinks(line); err == nil {
			out[r] = true
		}
	}
	return out
}

// checkProgram judges, at act, an installed desktop application's program
// and what it is given (see the comment at the top of this file). prog is
// what its entries say; dirs are the folders its files may come from.
func (p *Policy) checkProgram(command string, args []string, prog program, dirs []string) error {
	resolved := resolveProgram(command)
	runs := ""
	switch {
	case p.shells[command] || p.shells[resolved] || p.shells[filepath.Base(command)]:
		runs = "a shell"
	case prog.runner:
		runs = "a terminal or a launcher of programs"
	case !prog.gui:
		runs = "a console program (its desktop entry runs it in a terminal)"
	}
	if runs != "" {
		return fmt.Errorf("open_app %s needs the sensitive tier: it is %s, which runs what it is given, and at %s no program runs page-supplied code (--allow sensitive, or --apps NAME): %w", command, runs, p.tier, ErrDenied)
	}
	for _, a := range args {
		if u, ok := urlArg(a); ok {
			if u.Scheme == "http" || u.Scheme == "https" {
				continue
			}
			return fmt.Errorf("open_app %s %s needs the sensitive tier: at %s, an application is given http(s) URLs and files from %s (--allow sensitive, --files DIR, or --apps NAME): %w", command, a, p.tier, where(dirs), ErrDenied)
		}
		if !inside(a, dirs) {
			return fmt.Errorf("open_app %s %s needs the sensitive tier: at %s, an application is given http(s) URLs and files from %s, not other files, options or commands (--allow sensitive, --files DIR, or --apps NAME): %w", command, a, p.tier, where(dirs), ErrDenied)
		}
		if prog.browser {
			return fmt.Errorf("open_app %s %s needs the sensitive tier: a web browser opens a file as a file: URL and runs its scripts (--allow sensitive): %w", command, a, ErrDenied)
		}
	}
	return nil
}

// urlArg reads an argument that is a URL (a scheme of two letters or
// more, so "C:" and paths are not), or reports that it is none.
func urlArg(a string) (*url.URL, bool) {
	if strings.HasPrefix(a, "/") || strings.HasPrefix(a, ".") {
		return nil, false
	}
	u, err := url.Parse(a)
	if err != nil || len(u.Scheme) < 2 {
		return nil, false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	return u, true
}

// inside reports whether path, cleaned and made absolute (nothing looked
// up on disk, so a refusal says nothing about the file), lies in one of
// dirs.
func inside(path string, dirs []string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(dirs, func(d string) bool {
		return d != "" && strings.HasPrefix(abs, d+string(filepath.Separator))
	})
}

// where names the folders files may come from, for a refusal.
func where(dirs []string) string {
	named := slices.DeleteFunc(slices.Clone(dirs), func(d string) bool { return d == "" })
	if len(named) == 0 {
		return "the session's downloads folder"
	}
	return strings.Join(named, " or ")
}

// appDirs are the folders an application's files may come from at act:
// the session's downloads folder and the files folder (--files).
func (p *Policy) appDirs(downloads string) []string {
	var dirs []string
	if downloads != "" {
		dirs = append(dirs, filepath.Clean(downloads))
	}
	if p.files != "" && !slices.Contains(dirs, p.files) {
		dirs = append(dirs, p.files)
	}
	return dirs
}
