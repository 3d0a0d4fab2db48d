// Package save writes the files canopy makes for an action — a screenshot
// given a path, print's PDF — and nothing else in canopy writes them
// (docs/tiers.md, docs/decisions/2026-11-28-files-canopy-writes.md).
//
// A file lands in the session's downloads folder: a relative path is taken
// inside it, never against canopy's working folder. A path that leads
// anywhere else — "..", an absolute path, a folder on the way that is a
// symbolic link out of the folder — needs the sensitive tier. The gate
// judges that from [Folder.Locate] before the action runs, and the permit
// carries its judgement to [Folder.Write]. Whatever the tier, Write never
// follows a link at the file's own name, never writes over a file (a taken
// name becomes "name (1).png"), and never writes the audit log.
package save

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
)

// ScreenshotName is the file a surface that shows no images (the shell,
// canopy do) saves a screenshot as when the step names none.
const ScreenshotName = "screenshot.png"

// Folder is where a session's actions save files.
type Folder struct {
	// Dir is the session's downloads folder: files land in it, and a
	// relative path is taken inside it. "" when the session has none:
	// every path is then elsewhere (a relative one taken against the
	// working folder), so only the sensitive tier saves files.
	Dir string
	// Audit is the audit log's path, or "": no file is written on it, at
	// any tier.
	Audit string
}

// Place is where a path leads.
type Place struct {
	// Path is the file's path: absolute and clean, the links among its
	// folders resolved. Its own name is not followed: a link there is a
	// name that is taken, and the file is written beside it.
	Path string
	// Rel is Path inside the downloads folder (the folder's own links
	// resolved too), or "" when it lies elsewhere.
	Rel string
}

// Inside reports whether the place lies in the downloads folder.
func (p Place) Inside() bool { return p.Rel != "" }

// Locate finds where name leads, as Write will write it: relative to the
// downloads folder, with ".." taken away and the links among its folders
// resolved. Nothing is created.
func (f Folder) Locate(name string) (Place, error) {
	dir, real := f.dir()
	path := name
	if !filepath.IsAbs(path) {
		if dir == "" {
			abs, err := filepath.Abs(path)
			if err != nil {
				return Place{}, err
			}
			path = abs
		} else {
			path = filepath.Join(dir, path)
		}
	}
	path = filepath.Clean(path)
	if name == "" || strings.HasSuffix(name, string(filepath.Separator)) || path == dir || path == real ||
		path == filepath.Dir(path) {
		return Place{}, fmt.Errorf("%q names a folder, not a file", name)
	}
	switch filepath.Base(name) {
	case ".", "..":
		return Place{}, fmt.Errorf("%q names a folder, not a file", name)
	}
	parent, ok := resolved(filepath.Dir(path))
	p := Place{Path: filepath.Join(parent, filepath.Base(path))}
	if !ok || real == "" {
		return p, nil
	}
	if rel, err := filepath.Rel(real, p.Path); err == nil && filepath.IsLocal(rel) {
		p.Rel = rel
	}
	return p, nil
}

// dir is the downloads folder made absolute, and with its links resolved.
func (f Folder) dir() (abs, real string) {
	if f.Dir == "" {
		return "", ""
	}
	abs, err := filepath.Abs(f.Dir)
	if err != nil {
		abs = filepath.Clean(f.Dir)
	}
	if real, err = filepath.EvalSymlinks(abs); err != nil {
		real = abs
	}
	return abs, real
}

// resolved is the folder p with the links among the folders that exist
// resolved, and the rest, which the writer will make, as written. ok is
// false when a link on the way leads nowhere: what would be made through
// it is not known, and the place is taken as lying elsewhere.
func resolved(p string) (string, bool) {
	rest := ""
	for cur := p; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), true
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return p, false
		}
		up := filepath.Dir(cur)
		if up == cur {
			return p, true
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = up
	}
}

// Saved is a file Write wrote.
type Saved struct {
	// Path is where it landed: the name asked for, or the free one
	// picked beside it.
	Path string
	// Line says so, for the reply: "screenshot saved to PATH".
	Line string
}

// Write saves data, the file action a made, at a.Path, or, when a names
// none, at fallback (a plain file name the source picked, such as the
// page's title) in the downloads folder. The permit must have been issued
// for a. A place in the downloads folder is written through an [os.Root]
// on it, so no link or ".." can lead the write out of it, whatever
// changed since the gate looked; a place elsewhere needs a permit that
// allows it (the sensitive tier). The file is created, never opened: a
// name that is taken (by a file, a folder or a link) gets " (1)", " (2)"…
// before its extension. The audit log is refused, at any tier.
func (f Folder) Write(p *policy.Permit, a action.Action, fallback string, data []byte) (Saved, error) {
	if err := p.Allows(a.Kind); err != nil {
		return Saved{}, err
	}
	name := a.Path
	if name == "" {
		if !filepath.IsLocal(fallback) || filepath.Base(fallback) != fallback {
			return Saved{}, fmt.Errorf("no file name to save as")
		}
		name = fallback
	}
	pl, err := f.Locate(name)
	if err != nil {
		return Saved{}, err
	}
	if f.isAudit(pl.Path) {
		return Saved{}, fmt.Errorf("no action writes canopy's audit log, at any tier: %w", policy.ErrDenied)
	}
	var dir, file string
	if pl.Inside() {
		_, dir = f.dir()
		file = pl.Rel
	} else {
		if !p.SavesAnywhere() {
			return Saved{}, fmt.Errorf("writing a file outside the downloads folder needs the sensitive tier (--allow sensitive): %w", policy.ErrDenied)
		}
		dir, file = filepath.Split(pl.Path)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return Saved{}, fmt.Errorf("make the folder for %s: %w", name, err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return Saved{}, fmt.Errorf("open the folder for %s: %w", name, err)
	}
	defer root.Close()
	if sub := filepath.Dir(file); sub != "." {
		if err := root.MkdirAll(sub, 0o700); err != nil {
			return Saved{}, fmt.Errorf("make the folder for %s: %w", name, err)
		}
	}
	written, err := create(root, file, data, func(rel string) bool { return f.isAudit(filepath.Join(dir, rel)) })
	if err != nil {
		return Saved{}, fmt.Errorf("save %s: %w", name, err)
	}
	path := filepath.Join(dir, written)
	return Saved{Path: path, Line: line(a.Kind, path, len(data))}, nil
}

// create makes a new file in root at name, or at the first free name like
// it that skip does not refuse, and writes data in it. It never opens a
// file that exists: O_EXCL refuses a name that is taken, a link included,
// whatever it points at.
func create(root *os.Root, name string, data []byte, skip func(string) bool) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := range 1000 {
		try := name
		if i > 0 {
			try = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		if skip(try) {
			continue
		}
		f, err := root.OpenFile(try, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		if err := errors.Join(werr, f.Close()); err != nil {
			_ = root.Remove(try) // the file is canopy's own, made just now
			return "", err
		}
		return try, nil
	}
	return "", fmt.Errorf("no free file name like %s", filepath.Base(name))
}

// isAudit reports whether path is the audit log: the same name (its
// folders' links resolved), or the same file under another name (a hard
// link). A link to the log is not the log: Write writes beside it.
func (f Folder) isAudit(path string) bool {
	if f.Audit == "" {
		return false
	}
	log, err := filepath.Abs(f.Audit)
	if err != nil {
		log = filepath.Clean(f.Audit)
	}
	if parent, _ := resolved(filepath.Dir(log)); path == log || path == filepath.Join(parent, filepath.Base(log)) {
		return true
	}
	a, err := os.Stat(log)
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// line is the reply's line for a file saved.
func line(k action.Kind, path string, n int) string {
	switch k {
	case action.Screenshot:
		return "screenshot saved to " + path
	case action.Print:
		return fmt.Sprintf("saved the page as PDF: %s (%s)", path, size(n))
	}
	return fmt.Sprintf("saved %s (%s)", path, size(n))
}

// size renders a byte count for a line: "512 bytes", "28 KB".
func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KB", (n+1023)/1024)
}
