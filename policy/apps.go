package policy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// desktopPrograms lists the programs of the installed desktop applications:
// the first word of each .desktop entry's Exec line (XDG desktop entries in
// $XDG_DATA_HOME/applications and each $XDG_DATA_DIRS/applications), by the
// name as written and by the path it resolves to on $PATH. Hidden entries
// and entries that are not applications are left out.
func desktopPrograms() map[string]bool {
	progs := map[string]bool{}
	for _, dir := range applicationDirs() {
		files, _ := filepath.Glob(filepath.Join(dir, "*.desktop"))
		for _, f := range files {
			prog := entryProgram(f)
			if prog == "" {
				continue
			}
			progs[prog] = true
			if r := resolveProgram(prog); r != "" {
				progs[r] = true
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

// entryProgram reads the program a desktop entry starts, or "" when it is
// hidden, not an application, or starts none.
func entryProgram(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, prog, app := false, "", false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "[Desktop Entry]"
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Type":
			app = strings.TrimSpace(v) == "Application"
		case "Hidden":
			if strings.TrimSpace(v) == "true" {
				return ""
			}
		case "Exec":
			prog = execProgram(v)
		}
	}
	if !app {
		return ""
	}
	return prog
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
