package action

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The kinds at the page's edges: printing, the permissions a site asks
// the browser for, and the clipboard.

// printSpec declares print: the page as a PDF file, which canopy saves
// (package save). A bare file name (or a relative path) lands in the
// downloads folder at the act tier; a path anywhere else writes a local
// file, which is sensitive (docs/tiers.md).
func printSpec() Spec {
	return Spec{
		Kind: Print, Doc: "Save the page as PDF.",
		Syntax: `print ["file.pdf"]`, Tool: true, Tier: Act, Reads: true,
		Hints: Hints{NotDestructive: true},
		Args: []Arg{
			str("path", "default: downloads folder", func(a *Action, s string) { a.Path = s }),
		},
		tierOf: savedTier(Act),
		saves:  func(Action) bool { return true },
		parse: func(p *stepParser) error {
			p.a.Path = p.arg(0)
			return p.tooMany(1)
		},
	}
}

// savedTier is the tier of a kind that saves a file (print's PDF, a
// screenshot given a path): its own when the file lands in the downloads
// folder, sensitive anywhere else (docs/tiers.md). No path, or a relative
// one, lands in the folder. The gate judges the path the writer will
// write (package save: `..` and symbolic links resolved; relative inside
// the folder, absolute elsewhere), so "../x.png", or "link/x.png" through
// a link out of the folder, is sensitive.
func savedTier(own Tier) func(Action) Tier {
	return func(a Action) Tier {
		if a.Path == "" || filepath.IsLocal(a.Path) {
			return own
		}
		return Sensitive
	}
}

// SavesFile reports whether the action makes a file canopy writes: print's
// PDF, a screenshot given a path. The one writer (package save) writes it.
func (a Action) SavesFile() bool {
	s, ok := SpecOf(a.Kind)
	return ok && s.saves != nil && s.saves(a)
}

// SavesOutside reports whether the file the action saves goes outside the
// downloads folder, judged on its path as the gate hands it (see
// savedTier): what makes it sensitive.
func (a Action) SavesOutside() bool {
	return a.SavesFile() && a.Path != "" && !filepath.IsLocal(a.Path)
}

// PermissionTypes are the names permissions takes, each with the names
// of the browser's permission descriptors behind it (Blink's
// permission_descriptor.idl, which CDP's Browser.setPermission takes).
var PermissionTypes = map[string][]string{
	"geolocation":       {"geolocation"},
	"notifications":     {"notifications"},
	"camera":            {"camera"},
	"microphone":        {"microphone"},
	"clipboard":         {"clipboard-read", "clipboard-write"},
	"midi":              {"midi"},
	"sensors":           {"accelerometer", "gyroscope", "magnetometer"},
	"background-sync":   {"background-sync"},
	"storage-access":    {"storage-access"},
	"local-fonts":       {"local-fonts"},
	"window-management": {"window-management"},
	"idle-detection":    {"idle-detection"},
	"screen-wake-lock":  {"screen-wake-lock"},
	"payment-handler":   {"payment-handler"},
}

// PermissionNames lists the names permissions takes, sorted.
func PermissionNames() []string {
	var out []string
	for k := range PermissionTypes {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// CheckPermissions reports the first name that is not a permission.
func CheckPermissions(names []string) error {
	for _, n := range names {
		if _, ok := PermissionTypes[n]; !ok {
			return oneOfErr("permission", n, PermissionNames())
		}
	}
	return nil
}

// permissionsSpec declares permissions: grant or deny a site what it asks
// the browser for, ahead of time or while its prompt is up, or reset them.
// Granting the clipboard lets a page read it, which is sensitive, as
// reading it is (docs/tiers.md).
func permissionsSpec() Spec {
	return Spec{
		Kind: Permissions, Doc: "Grant, deny or reset a site's permissions.",
		Syntax: `permissions [grant NAME…] [deny NAME…] [reset] ["origin"]`, Tool: true, Tier: Act, Reads: true,
		Hints: setting,
		Args: []Arg{
			list("grant", "e.g. geolocation, camera, clipboard", func(a *Action, s []string) { a.Grant = s }),
			list("deny", "", func(a *Action, s []string) { a.Deny = s }),
			boolean("reset", "", func(a *Action, b bool) { a.Reset = b }),
			str("origin", "default: the page's", func(a *Action, s string) { a.Origin = s }),
		},
		tierOf: func(a Action) Tier {
			if slices.Contains(a.Grant, "clipboard") {
				return Sensitive
			}
			return Act
		},
		check: func(a Action) error {
			if len(a.Grant) == 0 && len(a.Deny) == 0 && !a.Reset {
				return fmt.Errorf("permissions needs grant, deny or reset, e.g. grant geolocation")
			}
			for _, g := range a.Grant {
				if slices.Contains(a.Deny, g) {
					return fmt.Errorf("permissions cannot grant and deny %s at once", g)
				}
			}
			if err := CheckPermissions(a.Grant); err != nil {
				return err
			}
			return CheckPermissions(a.Deny)
		},
		parse: parsePermissions,
	}
}

// parsePermissions reads `permissions grant geolocation notifications
// deny camera "https://example.com"`: the words after grant or deny are
// names, until the next keyword.
func parsePermissions(p *stepParser) error {
	var list *[]string
	for _, t := range p.sel {
		switch w := strings.ToLower(t.text); w {
		case "grant":
			list = &p.a.Grant
		case "deny":
			list = &p.a.Deny
		case "reset":
			p.a.Reset, list = true, nil
		default:
			if list == nil {
				return errAt(t.col, "permissions takes grant NAME…, deny NAME… or reset, not %q", t.text)
			}
			*list = append(*list, w)
		}
	}
	p.sel = nil
	p.a.Origin = p.arg(0)
	return p.tooMany(1)
}

// clipboardSpec declares clipboard: with text, put it on the clipboard
// (what Ctrl+V pastes next, in a page or a desktop app); without, read
// what is there. Reading is sensitive: the clipboard may hold what the
// user copied from anywhere (docs/tiers.md).
func clipboardSpec() Spec {
	return Spec{
		Kind: Clipboard, Doc: "Put text on the clipboard, or read it.",
		Syntax: `clipboard ["text"]`, Tool: true, Tier: Act, Reads: true,
		Hints: Hints{NotDestructive: true},
		Args: []Arg{
			str("text", "to write; omit to read", func(a *Action, s string) { a.Text = s }),
		},
		tierOf: func(a Action) Tier {
			if a.Text == "" {
				return Sensitive
			}
			return Act
		},
		parse: func(p *stepParser) error {
			p.a.Text = p.arg(0)
			return p.tooMany(1)
		},
	}
}
