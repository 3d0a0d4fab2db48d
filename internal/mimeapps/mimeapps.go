// Package mimeapps finds the application a Linux desktop opens a MIME type
// or a URL scheme with, the way xdg-open, GIO and the desktop portal do: by
// the freedesktop.org "Association between MIME types and applications"
// spec (mimeapps.list files) and the desktop entries' MimeType= keys. It
// reads the files itself: no xdg-utils, no GLib.
//
// A URL scheme is the MIME type x-scheme-handler/SCHEME: the handler of
// mailto: links is the default application of x-scheme-handler/mailto.
package mimeapps

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// App is a desktop application, by its desktop entry.
type App struct {
	// ID is the desktop file ID ("thunderbird.desktop"; a file in a
	// subfolder kde/x.desktop is "kde-x.desktop").
	ID string
	// Name is the entry's Name= (untranslated).
	Name string
	// Path is the desktop entry's file.
	Path string
}

// Dirs are the XDG base directories the lookup reads, highest precedence
// first within each list.
type Dirs struct {
	ConfigHome string
	ConfigDirs []string
	DataHome   string
	DataDirs   []string
	// Desktops are the names of the current desktop environment
	// ($XDG_CURRENT_DESKTOP, lower case), for DESKTOP-mimeapps.list.
	Desktops []string
}

// FromEnv reads the directories from the environment, with the XDG base
// directory spec's defaults.
func FromEnv() Dirs {
	home, _ := os.UserHomeDir()
	d := Dirs{
		ConfigHome: os.Getenv("XDG_CONFIG_HOME"),
		DataHome:   os.Getenv("XDG_DATA_HOME"),
		ConfigDirs: splitList(os.Getenv("XDG_CONFIG_DIRS"), "/etc/xdg"),
		DataDirs:   splitList(os.Getenv("XDG_DATA_DIRS"), "/usr/local/share:/usr/share"),
	}
	if d.ConfigHome == "" && home != "" {
		d.ConfigHome = filepath.Join(home, ".config")
	}
	if d.DataHome == "" && home != "" {
		d.DataHome = filepath.Join(home, ".local", "share")
	}
	for _, name := range strings.Split(os.Getenv("XDG_CURRENT_DESKTOP"), ":") {
		if name = strings.ToLower(strings.TrimSpace(name)); name != "" {
			d.Desktops = append(d.Desktops, name)
		}
	}
	return d
}

func splitList(v, def string) []string {
	if v == "" {
		v = def
	}
	var out []string
	for _, p := range filepath.SplitList(v) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// SchemeHandler returns the application the desktop opens URLs of scheme
// with ("mailto" → Thunderbird), by the environment's directories; false
// when no installed application handles it.
func SchemeHandler(scheme string) (App, bool) {
	return FromEnv().Default("x-scheme-handler/" + strings.ToLower(scheme))
}

// Default returns the application that opens mime: the first default in
// the mimeapps.list files (in precedence order) whose entry is installed;
// else the first added association; else the first installed entry that
// lists mime in its MimeType= key. Associations a mimeapps.list removes are
// skipped in the files after it and among the entries. false when no
// installed application handles mime.
func (d Dirs) Default(mime string) (App, bool) {
	mime = strings.ToLower(mime)
	entries := d.entries()
	removed := map[string]bool{}
	var added []string
	for _, list := range d.lists() {
		groups := readList(list)
		for _, id := range groups["Default Applications"][mime] {
			if app, ok := entries.app(id); ok && !removed[id] {
				return app.App, true
			}
		}
		for _, id := range groups["Added Associations"][mime] {
			if !removed[id] {
				added = append(added, id)
			}
		}
		for _, id := range groups["Removed Associations"][mime] {
			removed[id] = true
		}
	}
	for _, id := range added {
		if app, ok := entries.app(id); ok && !removed[id] {
			return app.App, true
		}
	}
	for _, id := range entries.order {
		if removed[id] {
			continue
		}
		if app, ok := entries.app(id); ok && slices.Contains(app.mimes, mime) {
			return app.App, true
		}
	}
	return App{}, false
}

// lists are the mimeapps.list files, highest precedence first: in the
// user's config folder, the system's config folders, the user's data
// folder and the system's data folders (applications/), each
// DESKTOP-mimeapps.list before mimeapps.list.
func (d Dirs) lists() []string {
	var out []string
	add := func(dir string) {
		if dir == "" {
			return
		}
		for _, de := range d.Desktops {
			out = append(out, filepath.Join(dir, de+"-mimeapps.list"))
		}
		out = append(out, filepath.Join(dir, "mimeapps.list"))
	}
	add(d.ConfigHome)
	for _, c := range d.ConfigDirs {
		add(c)
	}
	for _, dir := range d.appDirs() {
		add(dir)
	}
	return out
}

// appDirs are the folders desktop entries live in, highest precedence
// first.
func (d Dirs) appDirs() []string {
	var out []string
	if d.DataHome != "" {
		out = append(out, filepath.Join(d.DataHome, "applications"))
	}
	for _, dir := range d.DataDirs {
		out = append(out, filepath.Join(dir, "applications"))
	}
	return out
}

// readList reads a mimeapps.list: group → MIME type → desktop file IDs.
// A missing or unreadable file is empty.
func readList(path string) map[string]map[string][]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	groups := map[string]map[string][]string{}
	group := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			group = line[1 : len(line)-1]
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || group == "" {
			continue
		}
		if groups[group] == nil {
			groups[group] = map[string][]string{}
		}
		k = strings.ToLower(strings.TrimSpace(k))
		for _, id := range strings.Split(v, ";") {
			if id = strings.TrimSpace(id); id != "" {
				groups[group][k] = append(groups[group][k], id)
			}
		}
	}
	return groups
}

// entry is an installed desktop entry.
type entry struct {
	App
	mimes  []string
	hidden bool
}

// entrySet holds the desktop entries of the data folders, the first of
// each ID (the highest precedence) only.
type entrySet struct {
	byID  map[string]*entry
	order []string // IDs, in precedence order
}

// app returns the installed application of a desktop file ID: not hidden,
// an application.
func (s entrySet) app(id string) (entry, bool) {
	e := s.byID[id]
	if e == nil || e.hidden {
		return entry{}, false
	}
	return *e, true
}

// entries reads the desktop entries of every applications folder, in
// precedence order. An entry of a folder with higher precedence hides the
// entries of the same ID in the folders after it (Hidden=true included:
// that is how a user removes a system entry).
func (d Dirs) entries() entrySet {
	s := entrySet{byID: map[string]*entry{}}
	for _, dir := range d.appDirs() {
		var found []string
		_ = filepath.WalkDir(dir, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if !de.IsDir() && strings.HasSuffix(de.Name(), ".desktop") {
				found = append(found, path)
			}
			return nil
		})
		slices.Sort(found)
		for _, path := range found {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				continue
			}
			id := strings.ReplaceAll(filepath.ToSlash(rel), "/", "-")
			if _, seen := s.byID[id]; seen {
				continue
			}
			e := readEntry(path)
			e.ID = id
			s.byID[id] = &e
			s.order = append(s.order, id)
		}
	}
	return s
}

// readEntry reads the [Desktop Entry] group of a desktop file. An entry
// that cannot be read, or is no application, counts as hidden.
func readEntry(path string) entry {
	e := entry{App: App{Path: path}, hidden: true}
	f, err := os.Open(path)
	if err != nil {
		return e
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, app, hidden := false, false, false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "[Desktop Entry]"
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !in || !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "Type":
			app = v == "Application"
		case "Name":
			e.Name = v
		case "Hidden":
			hidden = v == "true"
		case "MimeType":
			for _, m := range strings.Split(v, ";") {
				if m = strings.TrimSpace(m); m != "" {
					e.mimes = append(e.mimes, strings.ToLower(m))
				}
			}
		}
	}
	e.hidden = hidden || !app
	return e
}
