package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/canopy-dev/canopy/internal/site"
)

// env is what a task run has to hand: the test site and, for the
// desktop task, the folder the download is saved in.
type env struct {
	site      *site.Site
	downloads string
}

// task is one task of the set, with a plan per surface. A plan starts
// knowing only what the task gives (given); everything else it names it
// parses out of the replies.
type task struct {
	name, desc string
	desktop    bool
	given      func(e env) []string
	mcp        func(ctx context.Context, a *agent, e env) error
	shell      func(ctx context.Context, a *agent, e env) error
	// done checks, from the replies (and the disk), that the task
	// succeeded.
	done func(a *agent, e env) error
}

// The login task's data.
const (
	email    = "ada@example.com"
	password = "correct horse"
	welcome  = `"Welcome back, ada@example.com!"`
)

// saveAs is the name the download task saves the report under.
const saveAs = "q3-report.txt"

// editor is the program the download task opens the file with.
const editor = "mousepad"

// guides are the three pages of the nav task.
var guides = []string{"/guide-1.html", "/guide-2.html", "/guide-3.html"}

// navLinks are the links of the Sections nav of each guide page, as
// markdown links (name and href): nine in all.
var navLinks = []string{
	"[Installing, part 1](", "#install-1)", "[Usage, part 1](", "#usage-1)", "[Next: part 2](", "guide-2.html)",
	"[Installing, part 2](", "#install-2)", "[Usage, part 2](", "#usage-2)", "[Next: part 3](", "guide-3.html)",
	"[Installing, part 3](", "#install-3)", "[Usage, part 3](", "#usage-3)", "[Next: part 1](", "guide-1.html)",
}

var tasks = []task{
	{
		name: "article",
		desc: "read the article's text (article.html)",
		given: func(e env) []string {
			return []string{e.site.URL("/article.html")}
		},
		// The text as markdown, with the page it came from.
		mcp: func(ctx context.Context, a *agent, e env) error {
			_, err := a.batch(ctx,
				step{"navigate", map[string]any{"url": e.site.URL("/article.html")}},
				step{"extract", map[string]any{"format": "markdown"}})
			return err
		},
		shell: func(ctx context.Context, a *agent, e env) error {
			_, err := a.shell(ctx, `open "`+e.site.URL("/article.html")+`"; text`)
			return err
		},
		done: func(a *agent, e env) error {
			return want(a.all(), "# How trees grow", "By Ada Lovelace, 2 November 2026", "MARKER-ARTICLE: trees grow a ring a year.")
		},
	},
	{
		name: "login",
		desc: "fill and submit the login form (login.html)",
		given: func(e env) []string {
			return []string{e.site.URL("/login.html"), email, password}
		},
		// Look, then one batch on the refs the page showed.
		mcp: func(ctx context.Context, a *agent, e env) error {
			if _, err := a.call(ctx, "navigate", map[string]any{"url": e.site.URL("/login.html")}); err != nil {
				return err
			}
			refs, err := refs(a, [][2]string{{"textbox", "Email"}, {"textbox", "Password"}, {"checkbox", "Remember me"}, {"button", "Sign in"}})
			if err != nil {
				return err
			}
			_, err = a.batch(ctx,
				step{"type", map[string]any{"target": refs[0], "text": email}},
				step{"type", map[string]any{"target": refs[1], "text": password}},
				step{"check", map[string]any{"target": refs[2]}},
				step{"click", map[string]any{"target": refs[3]}})
			return err
		},
		// Look, then one command line on the paths the page showed.
		shell: func(ctx context.Context, a *agent, e env) error {
			if _, err := a.shell(ctx, `open "`+e.site.URL("/login.html")+`"`); err != nil {
				return err
			}
			form, err := segment(a, "form", "Login")
			if err != nil {
				return err
			}
			var segs []string
			for _, rn := range [][2]string{{"textbox", "Email"}, {"textbox", "Password"}, {"checkbox", "Remember me"}, {"button", "Sign in"}} {
				s, err := segment(a, rn[0], rn[1])
				if err != nil {
					return err
				}
				segs = append(segs, s)
			}
			_, err = a.shell(ctx, fmt.Sprintf(`cd %s; type %s "%s"; type %s "%s"; check %s; click %s`,
				form, segs[0], email, segs[1], password, segs[2], segs[3]))
			return err
		},
		done: func(a *agent, e env) error {
			return want(a.all(), welcome)
		},
	},
	{
		name: "nav-links",
		desc: "collect every link of the Sections nav across guide-1/2/3.html",
		given: func(e env) []string {
			var g []string
			for _, p := range guides {
				g = append(g, e.site.URL(p))
			}
			return g
		},
		// Look at the first page, then one batch: the nav's links there,
		// and on each other page.
		mcp: func(ctx context.Context, a *agent, e env) error {
			if _, err := a.call(ctx, "navigate", map[string]any{"url": e.site.URL(guides[0])}); err != nil {
				return err
			}
			nav, err := selectorOf(a, "navigation", "Sections")
			if err != nil {
				return err
			}
			links := step{"extract", map[string]any{"scope": nav, "format": "links"}}
			steps := []step{links}
			for _, p := range guides[1:] {
				steps = append(steps, step{"navigate", map[string]any{"url": e.site.URL(p)}}, links)
			}
			_, err = a.batch(ctx, steps...)
			return err
		},
		shell: func(ctx context.Context, a *agent, e env) error {
			if _, err := a.shell(ctx, `open "`+e.site.URL(guides[0])+`"`); err != nil {
				return err
			}
			nav, err := segment(a, "navigation", "Sections")
			if err != nil {
				return err
			}
			var urls []string
			for _, p := range guides[1:] {
				urls = append(urls, e.site.URL(p))
			}
			_, err = a.shell(ctx, fmt.Sprintf("text %s; for p in %s; do open $p | head -n 0; text %s; done",
				nav, strings.Join(urls, " "), nav))
			return err
		},
		done: func(a *agent, e env) error {
			return want(a.all(), navLinks...)
		},
	},
	{
		name:    "download",
		desc:    "save a download through the browser's Save dialog and open it in mousepad",
		desktop: true,
		given: func(e env) []string {
			return []string{e.site.URL("/download.html"), saveAs, editor, filepath.Join(e.downloads, saveAs)}
		},
		// Look; click the link the page showed, which opens the Save
		// dialog; then name the file, save it and open it, on the refs
		// the dialog showed.
		mcp: func(ctx context.Context, a *agent, e env) error {
			if _, err := a.call(ctx, "navigate", map[string]any{"url": e.site.URL("/download.html")}); err != nil {
				return err
			}
			link, err := a.ref("link", "Download report")
			if err != nil {
				return err
			}
			r, err := a.call(ctx, "click", map[string]any{"target": link})
			if err != nil {
				return err
			}
			if !openedDialog.MatchString(r) {
				// The click settled before the dialog was drawn.
				if _, err := a.call(ctx, "wait", map[string]any{"target": "role:dialog state:modal", "timeout_ms": 10000}); err != nil {
					return err
				}
			}
			refs, err := refs(a, [][2]string{{"textbox", "Name"}, {"button", "Save"}})
			if err != nil {
				return err
			}
			_, err = a.batch(ctx,
				step{"type", map[string]any{"target": refs[0], "text": saveAs, "clear": true}},
				step{"click", map[string]any{"target": refs[1]}},
				step{"open_app", map[string]any{"command": editor, "args": []string{filepath.Join(e.downloads, saveAs)}}})
			return err
		},
		shell: func(ctx context.Context, a *agent, e env) error {
			if _, err := a.shell(ctx, `open "`+e.site.URL("/download.html")+`"`); err != nil {
				return err
			}
			link, err := a.ref("link", "Download report")
			if err != nil {
				return err
			}
			r, err := a.shell(ctx, "click "+link)
			if err != nil {
				return err
			}
			if !openedDialog.MatchString(r) {
				if _, err := a.shell(ctx, "wait role:dialog state:modal"); err != nil {
					return err
				}
			}
			refs, err := refs(a, [][2]string{{"textbox", "Name"}, {"button", "Save"}})
			if err != nil {
				return err
			}
			_, err = a.shell(ctx, fmt.Sprintf(`type %s "%s" clear; click %s; open_app %s "%s"`,
				refs[0], saveAs, refs[1], editor, filepath.Join(e.downloads, saveAs)))
			return err
		},
		done: func(a *agent, e env) error {
			got, err := os.ReadFile(filepath.Join(e.downloads, saveAs))
			if err != nil {
				return fmt.Errorf("the saved file: %w", err)
			}
			if string(got) != site.ReportText {
				return fmt.Errorf("the saved file holds %q, want %q", got, site.ReportText)
			}
			if !editorShows.MatchString(a.all()) {
				return fmt.Errorf("the replies do not show the file's text in %s's window", editor)
			}
			return nil
		},
	},
}

// openedDialog is the outcome line of a desktop dialog that opened.
var openedDialog = regexp.MustCompile(`(?m)^opened dialog "[^"]+" \([^)]+\) e[0-9]+$`)

// editorShows is the editor's window holding the saved file's text.
var editorShows = regexp.MustCompile(`(?s)opened window "[^"]*` + regexp.QuoteMeta(saveAs) + `[^"]*" \(` + editor + `\).*value="` +
	regexp.QuoteMeta(strings.ReplaceAll(site.ReportText, "\n", `\n`)) + `"`)

// refs returns the refs of nodes by role and name, from the replies.
func refs(a *agent, nodes [][2]string) ([]string, error) {
	var out []string
	for _, rn := range nodes {
		r, err := a.ref(rn[0], rn[1])
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// segment returns the shell path segment of a node the replies showed
// (`role "name"` in a tree line), quoted for the shell when it has a
// space.
func segment(a *agent, role, name string) (string, error) {
	if !strings.Contains(a.all(), role+" "+quote(name)) {
		return "", fmt.Errorf("no %s %s in the replies so far", role, quote(name))
	}
	s := role + ":" + name
	if strings.ContainsAny(s, " \t'\"$;|") {
		s = "'" + s + "'"
	}
	return s, nil
}

// selectorOf returns a selector for a node the replies showed, one that
// holds across pages (refs do not).
func selectorOf(a *agent, role, name string) (string, error) {
	if !strings.Contains(a.all(), role+" "+quote(name)) {
		return "", fmt.Errorf("no %s %s in the replies so far", role, quote(name))
	}
	if strings.ContainsAny(name, " \t\"") {
		return "role:" + role + " name:" + quote(name), nil
	}
	return "role:" + role + " name:" + name, nil
}

// want reports the first of wants that text lacks.
func want(text string, wants ...string) error {
	for _, w := range wants {
		if !strings.Contains(text, w) {
			return fmt.Errorf("the reply lacks %q:\n%s", w, text)
		}
	}
	return nil
}
