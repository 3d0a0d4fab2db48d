//go:build linux

package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/tokens"
)

// A task is what an agent does on one page: open it, then steps. The
// per-action measures are one-step tasks on canopy's own pages; the
// third-party tasks are several steps on a real app.
type task struct {
	name  string
	path  string // on the site or the third-party server
	steps []step
}

// A step is one action and how to tell that a reply shows its change.
type step struct {
	do     string // click, type, select
	target target
	text   string // for type (the text, replacing the field's) and select (the option)
	submit bool   // type: press Enter after
	// sel is canopy's target: a selector, which needs no snapshot.
	sel string
	// shows reports whether text shows the step's change; snapshot says
	// whether text is a whole snapshot (where a gone thing is simply
	// absent) rather than an action's reply.
	shows func(text string, snapshot bool) bool
}

// target says how a peer finds the element's ref in its own snapshot: the
// first line with this role and quoted name (or whose quoted name starts
// with prefix), or, with near set, the line with that role (and name, if
// any) closest to the first line that contains near. With role "" the ref
// is the one on the nearest line that has one.
type target struct {
	role, name string
	prefix     bool
	near       string
	after      bool // look only after the near line (else nearest, before first)
}

// codeLine matches the lines of a reply that echo the code a peer ran
// (Playwright's `await page.getByRole(…).fill('…')`): they repeat the
// action's arguments, not the page's state, so no check reads them.
var codeLine = regexp.MustCompile(`await |getBy|\.fill\(|\.click\(|\.selectOption\(|\.press\(`)

// stateLines returns the lines of text that are not code.
func stateLines(text string) []string {
	var out []string
	for l := range strings.SplitSeq(text, "\n") {
		if !codeLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// has is a check: some state line matches re.
func has(re string) func(string, bool) bool {
	r := regexp.MustCompile(re)
	return func(text string, _ bool) bool {
		for _, l := range stateLines(text) {
			if r.MatchString(l) {
				return true
			}
		}
		return false
	}
}

// gone is a check: s is gone. A snapshot shows that by not holding s; an
// action's reply only by a line that says s went (a removed line, or s
// before the arrow of a changed one).
func gone(s string) func(string, bool) bool {
	return func(text string, snapshot bool) bool {
		if snapshot {
			return !strings.Contains(text, s)
		}
		for _, l := range stateLines(text) {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "- ") && strings.Contains(t, s) {
				return true
			}
			if before, _, ok := strings.Cut(t, "→"); ok && strings.HasPrefix(t, "~ ") && strings.Contains(before, s) {
				return true
			}
		}
		return false
	}
}

// checkedLine matches a checkbox line that says checked (and not "not
// checked", "unchecked" or "checked=false").
func checkedLine(name string) func(string, bool) bool {
	neg := regexp.MustCompile(`(?i)not checked|unchecked|checked[=:]\s*"?false"?`)
	pos := regexp.MustCompile(`(?i)\bchecked\b`)
	return func(text string, _ bool) bool {
		for _, l := range stateLines(text) {
			if !strings.Contains(l, "checkbox") || !strings.Contains(l, name) {
				continue
			}
			if pos.MatchString(neg.ReplaceAllString(l, "")) {
				return true
			}
		}
		return false
	}
}

// actionTasks are the per-action measures, on canopy's own pages.
var actionTasks = []task{
	{name: "check a checkbox", path: "/login.html", steps: []step{{
		do: "click", target: target{role: "checkbox", name: "Remember me"},
		sel: `role:checkbox name:"Remember me"`, shows: checkedLine("Remember me"),
	}}},
	{name: "open a modal dialog", path: "/dashboard.html", steps: []step{{
		do: "click", target: target{role: "button", name: "Delete", near: "Borealis", after: true},
		sel: `role:listitem text:Borealis >> role:button name:Delete`, shows: has(`Delete project Borealis`),
	}}},
	{name: "type into a field", path: "/login.html", steps: []step{{
		do: "type", target: target{role: "textbox", name: "Email"}, text: "ada@example.test",
		sel: `role:textbox name:Email`, shows: has(`textbox "Email".*ada@example\.test`),
	}}},
	{name: "select an option", path: "/widgets.html", steps: []step{{
		do: "select", target: target{role: "combobox", name: "Region"}, text: "Asia",
		sel: `role:combobox name:Region`, shows: has(`combobox "Region".*Asia|option "Asia".*selected`),
	}}},
	{name: "add a list item", path: "/todo.html", steps: []step{{
		do: "type", target: target{role: "textbox", name: "What needs to be done?"}, text: "Buy milk", submit: true,
		sel: `role:textbox name:"What needs to be done?"`, shows: has(`checkbox "Buy milk"`),
	}}},
}

// appTasks are the scripted tasks on the third-party apps
// (internal/thirdparty), the same steps for every server.
var appTasks = []task{
	{name: "todomvc", path: "/todomvc/examples/vanillajs/", steps: []step{
		{do: "type", target: target{role: "textbox", name: "What needs to be done?"}, text: "Buy milk", submit: true,
			sel: `role:textbox name:"What needs to be done?"`, shows: has(`Buy milk`)},
		{do: "type", target: target{role: "textbox", name: "What needs to be done?"}, text: "Walk the dog", submit: true,
			sel: `role:textbox name:"What needs to be done?"`, shows: has(`Walk the dog`)},
		{do: "click", target: target{role: "checkbox", near: "Buy milk"},
			sel: `role:listitem text:"Buy milk" >> role:checkbox`, shows: checkedLine("")},
		{do: "click", target: target{role: "link", name: "Active"},
			sel: `role:link name:Active`, shows: gone("Buy milk")},
		{do: "click", target: target{role: "link", name: "All"},
			sel: `role:link name:All`, shows: has(`Buy milk`)},
		{do: "click", target: target{role: "button", name: "Clear completed", prefix: true},
			sel: `role:button name~:"Clear completed"`, shows: gone("Buy milk")},
	}},
	{name: "swagger-ui", path: "/swagger/", steps: []step{
		{do: "click", target: target{role: "button", name: "GET /pets List pets"},
			sel: `role:button name:"GET /pets List pets"`, shows: has(`Try it out`)},
		{do: "click", target: target{role: "button", name: "Try it out"},
			sel: `role:button name:"Try it out"`, shows: has(`Execute`)},
		{do: "type", target: target{role: "textbox", name: "limit"}, text: "5",
			sel: `role:textbox name:limit`, shows: has(`textbox "limit".*\b5\b`)},
		{do: "click", target: target{role: "button", name: "Execute"},
			sel: `role:button name:Execute`, shows: has(`api/pets\?limit=5`)},
		{do: "click", target: target{role: "button", name: "Collapse operation"},
			sel: `role:heading name~:"Pets for sale" >> role:button name:"Collapse operation"`, shows: gone("List pets")},
	}},
	{name: "jsoneditor", path: "/jsoneditor/", steps: []step{
		{do: "click", target: target{role: "button", name: "Click to expand/collapse", prefix: true, near: "customer"},
			sel: `role:row name~:"| customer" >> role:button name~:"expand/collapse"`, shows: has(`Ada Lovelace`)},
		{do: "type", target: target{near: "pending"}, text: "shipped",
			sel: `role:generic name:string value:pending`, shows: has(`shipped`)},
		{do: "click", target: target{role: "button", name: "Click to open the actions menu", prefix: true, near: "notes"},
			sel: `role:row name~:"notes : null" >> role:button name~:"actions menu"`, shows: has(`"Remove"`)},
		{do: "click", target: target{role: "button", name: "Remove"},
			sel: `role:button name:Remove`, shows: gone("notes")},
		{do: "click", target: target{role: "button", name: "Tree", prefix: true},
			sel: `role:button name~:Tree`, shows: has(`"Text"`)},
		{do: "click", target: target{role: "button", name: "Text"},
			sel: `role:button name:Text`, shows: has(`Format JSON data`)},
	}},
}

// taskResult is what one server spent on one task.
type taskResult struct {
	Name      string `json:"name"`
	Err       string `json:"error,omitempty"` // the step that failed and why
	Calls     int    `json:"calls"`           // tool calls, navigate and snapshots included
	Tokens    int    `json:"observation_tokens"`
	Steps     int    `json:"steps"`
	Shown     int    `json:"replies_showing_change"` // steps whose action reply showed the change
	Followups int    `json:"followup_snapshots"`
	// Reply is the first step's action reply tokens (the per-action
	// measure) and Follow the follow-up snapshot's, 0 when not needed.
	Reply  int     `json:"reply_tokens"`
	Follow int     `json:"followup_tokens"`
	MS     float64 `json:"ms"`
	NavMS  float64 `json:"navigate_ms"` // of MS, the navigate's (the last run's)
	// StepsMS is the median of MS without the navigate.
	StepsMS float64 `json:"steps_ms"`
	// Missed are the steps whose change no reply showed, not even the
	// follow-up snapshot.
	Missed []string `json:"missed,omitempty"`
}

// runTask runs t on url the way an agent would, counting every reply text
// it reads. canopy targets by selector and reads a snapshot only when an
// action's reply does not show the change. A peer needs a ref from a
// snapshot taken after the last action for every target, so it reads a
// snapshot after each action (which is also how it sees the change).
func runTask(ctx context.Context, o options, p peer, srv *server, tok *tokens.Counter, url string, t task) (r taskResult) {
	r = taskResult{Name: t.name, Steps: len(t.steps)}
	start := time.Now()
	// r is the named result, so the time reaches the caller.
	defer func() { r.MS = ms(time.Since(start)) }()
	var seen string // the last snapshot the agent read
	call := func(name string, args map[string]any) (reply, error) {
		rep, err := srv.call(ctx, name, args)
		r.Calls++
		r.Tokens += tok.Count(rep.text)
		return rep, err
	}
	snapshot := func() (string, error) {
		name, args := p.snapshot()
		rep, err := call(name, args)
		return rep.text, err
	}
	name, args := p.navigate(url)
	nr, err := call(name, args)
	if err != nil {
		r.Err = "navigate: " + oneLine(err.Error(), 100)
		return r
	}
	r.NavMS = ms(nr.dur)
	if p.name == "canopy" {
		seen = nr.text // its navigate answers with the page's snapshot
	} else if seen, err = snapshot(); err != nil {
		r.Err = "snapshot: " + oneLine(err.Error(), 100)
		return r
	}
	base := strings.ReplaceAll(t.name, " ", "-")
	for i, s := range t.steps {
		ref := s.sel
		if p.name != "canopy" {
			ref = findRef(p, seen, s.target)
			if ref == "" && p.full != nil {
				// Not in the default snapshot (agent-browser's holds
				// interactive elements only, no text to find it by):
				// the agent asks for the full one.
				name, args := p.full()
				rep, err := call(name, args)
				if err != nil {
					r.Err = fmt.Sprintf("step %d: full snapshot: %s", i+1, oneLine(err.Error(), 100))
					return r
				}
				seen = rep.text
				ref = findRef(p, seen, s.target)
			}
			if ref == "" {
				r.Err = fmt.Sprintf("step %d (%s): no ref for %s in the snapshot", i+1, s.do, s.target)
				return r
			}
		}
		var text string
		for j, c := range p.act(s, ref) {
			rep, err := call(c.name, c.args)
			if err != nil {
				r.Err = fmt.Sprintf("step %d (%s): %s", i+1, s.do, oneLine(err.Error(), 100))
				return r
			}
			if j > 0 {
				text += "\n"
			}
			text += rep.text
		}
		dump(o, p.name, fmt.Sprintf("task-%s-%d.txt", base, i+1), text)
		if i == 0 {
			r.Reply = tok.Count(text)
		}
		if s.shows(text, false) {
			r.Shown++
			// A peer still needs a snapshot for its next target's ref.
			if p.name == "canopy" || i == len(t.steps)-1 {
				continue
			}
		}
		// The follow-up snapshot: to see the change, and for a peer to
		// find the next target.
		if seen, err = snapshot(); err != nil {
			r.Err = fmt.Sprintf("step %d: snapshot: %s", i+1, oneLine(err.Error(), 100))
			return r
		}
		r.Followups++
		dump(o, p.name, fmt.Sprintf("task-%s-%d-snapshot.txt", base, i+1), seen)
		if i == 0 {
			r.Follow = tok.Count(seen)
		}
		if !s.shows(text, false) && !s.shows(seen, true) {
			r.Missed = append(r.Missed, fmt.Sprintf("%d %s", i+1, s.do))
		}
	}
	return r
}

func (t target) String() string {
	s := t.role
	if t.name != "" {
		s += fmt.Sprintf(" %q", t.name)
	}
	if t.near != "" {
		s += fmt.Sprintf(" near %q", t.near)
	}
	return strings.TrimSpace(s)
}

// findRef finds the target's ref in a peer's snapshot.
func findRef(p peer, snapshot string, t target) string {
	lines := strings.Split(snapshot, "\n")
	match := func(l string) bool {
		if t.role != "" && !regexp.MustCompile(`\b`+regexp.QuoteMeta(t.role)+`\b`).MatchString(l) {
			return false
		}
		if t.name != "" {
			q := `"` + t.name
			if !t.prefix {
				q += `"`
			}
			if !strings.Contains(l, q) {
				return false
			}
		}
		return p.refRe.MatchString(l)
	}
	at := -1
	if t.near != "" {
		for i, l := range lines {
			if strings.Contains(l, t.near) {
				at = i
				break
			}
		}
		if at < 0 {
			return ""
		}
	}
	if at < 0 {
		for _, l := range lines {
			if match(l) {
				return p.refRe.FindStringSubmatch(l)[1]
			}
		}
		return ""
	}
	for d := 0; d <= 8; d++ {
		cand := []int{at - d, at + d}
		if t.after {
			cand = cand[1:]
		}
		for _, i := range cand {
			if i >= 0 && i < len(lines) && match(lines[i]) {
				return p.refRe.FindStringSubmatch(lines[i])[1]
			}
		}
	}
	return ""
}
