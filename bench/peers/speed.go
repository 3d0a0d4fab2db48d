//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/tokens"
)

// The speed section (issue 17): how long each server takes on big pages
// and for an action's reply, side by side. Its pages are measured like the
// others (measurePage: navigate and default snapshot, medians of -n runs);
// on top of that, per server:
//
//   - the page's accessibility nodes, counted over CDP by the bench itself
//     (every frame's Accessibility.getFullAXTree), the denominator of the
//     "per 1,000 AX nodes" figures;
//   - canopy only: its full snapshot's round trip (snapshot {full: true})
//     against the raw CDP calls such a snapshot needs, made by the bench
//     over its own CDP connection to the same page (rawPage.read), alternately,
//     -n times each;
//   - clicks (speedClicks): the click's reply and, when it does not show
//     the change, the read an agent makes to see it (a peer's delta read
//     if it has one, else its snapshot), timed together on a freshly
//     loaded page whose ref was taken from an untimed snapshot;
//   - canopy (peers with -flow-peers): the 20-edit flow on /grid.html.

// speedResult is one server's speed measures.
type speedResult struct {
	// Read is the tool that reads the change after an action whose reply
	// does not show it: the server's delta read, or its snapshot.
	Read   string       `json:"read_after_action"`
	Pages  []speedPage  `json:"pages"`
	Clicks []speedClick `json:"clicks"`
	// Flow is the 20-edit flow; FlowMS its time without the navigate.
	Flow   *taskResult `json:"edit_flow,omitempty"`
	FlowMS float64     `json:"edit_flow_ms,omitempty"`
	// Rows are the printed speed rows with their targets (canopy's result
	// only), for -json.
	Rows []speedRow `json:"rows,omitempty"`
}

// speedPage is what the speed section adds to a page's measures.
type speedPage struct {
	Path    string  `json:"path"`
	Err     string  `json:"error,omitempty"`
	AXNodes int     `json:"ax_nodes"` // over every frame, counted by the bench
	Frames  int     `json:"frames"`
	RawMS   float64 `json:"raw_cdp_ms,omitempty"`       // canopy's run: median of the raw CDP reads
	FullMS  float64 `json:"full_snapshot_ms,omitempty"` // canopy: median of snapshot {full: true}
}

// speedClick is one timed click.
type speedClick struct {
	Name   string  `json:"name"`
	Path   string  `json:"path"`
	Err    string  `json:"error,omitempty"`
	MS     float64 `json:"ms"`      // median of click + read (when needed)
	ActMS  float64 `json:"act_ms"`  // median of the click alone
	ReadMS float64 `json:"read_ms"` // median of the read after it, 0 when not needed
	Shown  bool    `json:"reply_shows_change"`
	Missed bool    `json:"change_not_shown,omitempty"` // not even the read showed it
}

// clickSpec is a click the speed section times, with its budget for
// canopy (0: reported only).
type clickSpec struct {
	name, path string
	step       step
	budgetMS   float64
	// canopyOnly marks a click the peers would pay for as much as for
	// another one on the same page (they read the whole page either way).
	canopyOnly bool
}

// speedClicks are the timed clicks: Edit in row 500 of the grid (≤ 300 ms),
// two clicks on small pages (≤ 45 ms), and clicks on the scale pages (run
// when the page is one of -speed-pages).
var speedClicks = []clickSpec{
	{name: `click "Edit" in row 500`, path: "/grid.html", budgetMS: 300, step: step{
		do: "click", target: target{role: "button", name: "Edit User 0500"},
		sel: `role:button name:"Edit User 0500"`, shows: has(`textbox "Name"`),
	}},
	{name: "check a checkbox", path: "/login.html", budgetMS: 45, step: actionTasks[0].steps[0]},
	{name: "open a modal dialog", path: "/dashboard.html", budgetMS: 45, step: actionTasks[1].steps[0]},
	{name: `click "Edit" in row 5000`, path: site.BigTablePath, step: step{
		do: "click", target: target{role: "link", name: "Edit User 5000"},
		sel: `role:link name:"Edit User 5000"`, shows: has(`Editing User 5000`),
	}},
	// Row 20 is in what canopy reads of a large page by default.
	{name: `click "Edit" in row 20`, path: site.BigTablePath, canopyOnly: true, step: step{
		do: "click", target: target{role: "link", name: "Edit User 0020"},
		sel: `role:link name:"Edit User 0020"`, shows: has(`Editing User 0020`),
	}},
	{name: `click "Like 25" in frame 25`, path: site.ManyFramesPath, step: step{
		do: "click", target: target{role: "button", name: "Like 25"},
		sel: `role:button name:"Like 25"`, shows: has(`Liked frame 25`),
	}},
}

// Budgets of the speed section.
const (
	flowBudgetMS = 8000 // the 20-edit flow, canopy
	rawTarget    = 1.3  // canopy's full snapshot ÷ the raw CDP reads it needs
	navTarget    = 1.0  // canopy's navigate (its reply holds the page) ÷ the fastest peer's navigate + snapshot
	flowEdits    = 20
)

// speedPages are the pages the speed section measures, by default.
func speedPages() []string {
	p := []string{"/table.html"}
	if site.HasPyDoc() {
		p = append(p, site.PyDocOSPath)
	}
	return append(p, site.BigTablePath, site.ManyFramesPath)
}

// editFlow is the 20-edit flow on /grid.html: for rows 50, 100, … 1000,
// click Edit, type a new name into the Name box, click Save. Save shows in
// the row's Edit button, renamed after the new name (the grid's status line
// never changes: its script's global "status" is window.status).
func editFlow() task {
	t := task{name: fmt.Sprintf("%d edits", flowEdits), path: "/grid.html"}
	for k := 1; k <= flowEdits; k++ {
		id := k * site.TableRows / flowEdits
		user, _, _ := site.TableUser(id)
		name := fmt.Sprintf("Edited row %04d", id)
		t.steps = append(t.steps,
			step{do: "click", target: target{role: "button", name: "Edit " + user},
				sel: fmt.Sprintf(`role:button name:"Edit %s"`, user), shows: has(`textbox "Name"`)},
			step{do: "type", target: target{role: "textbox", name: "Name"}, text: name,
				sel: `role:textbox name:Name`, shows: has(name)},
			step{do: "click", target: target{role: "button", name: "Save"},
				sel: `role:button name:Save`, shows: has("Edit " + name)},
		)
	}
	return t
}

// measureSpeed runs the speed section on one server. cdpURL is its
// browser's CDP endpoint, have the tools it lists.
func measureSpeed(ctx context.Context, o options, p peer, srv *server, tok *tokens.Counter, s *site.Site, cdpURL string) *speedResult {
	sr := &speedResult{}
	read, base := p.snapshot, p.snapshot
	if p.delta != nil {
		read, base = p.delta, p.deltaBase
	}
	name, args := read()
	sr.Read = name + argsNote(args)

	raw, err := dialRaw(ctx, cdpURL)
	if err != nil {
		logf("%s: %v", p.name, err)
	} else {
		defer raw.Close()
	}
	for _, path := range o.speedPages {
		logf("%s: speed %s", p.name, path)
		sr.Pages = append(sr.Pages, measureScale(ctx, o, p, srv, raw, s.URL(path), path))
	}
	for _, c := range speedClicks {
		scale := c.path == site.BigTablePath || c.path == site.ManyFramesPath
		switch {
		case scale && !slices.Contains(o.speedPages, c.path):
			sr.Clicks = append(sr.Clicks, speedClick{Name: c.name, Path: c.path, Err: "not run: not in -speed-pages"})
		case c.canopyOnly && p.name != "canopy":
			sr.Clicks = append(sr.Clicks, speedClick{Name: c.name, Path: c.path, Err: "not run: canopy only"})
		default:
			logf("%s: speed: %s", p.name, c.name)
			sr.Clicks = append(sr.Clicks, measureClick(ctx, o, p, srv, base, read, s.URL(c.path), c))
		}
	}
	if p.name == "canopy" || o.flowPeers {
		logf("%s: speed: %d edits", p.name, flowEdits)
		f := repeatTask(ctx, o, p, srv, tok, s.URL("/grid.html"), editFlow())
		sr.Flow, sr.FlowMS = &f, f.StepsMS
	}
	return sr
}

// measureScale counts a page's AX nodes over raw CDP and, on canopy,
// times its full snapshot against the raw reads, alternately.
func measureScale(ctx context.Context, o options, p peer, srv *server, raw *rawCDP, url, path string) speedPage {
	sp := speedPage{Path: path}
	if raw == nil {
		sp.Err = "no CDP connection"
		return sp
	}
	name, args := p.navigate(url)
	if _, err := srv.call(ctx, name, args); err != nil {
		sp.Err = err.Error()
		return sp
	}
	rp, err := attachRaw(ctx, raw, url)
	if err != nil {
		sp.Err = err.Error()
		return sp
	}
	defer rp.detach(ctx)
	if p.name != "canopy" {
		rr, err := rp.read(ctx)
		if err != nil {
			sp.Err = err.Error()
			return sp
		}
		sp.AXNodes, sp.Frames = rr.AXNodes, rr.Frames
		return sp
	}
	var fullT, rawT []time.Duration
	for i := range o.runs {
		// Alternate which goes first, so that neither always meets a
		// browser that just worked (canopy's full snapshot goes first,
		// so the page's accessibility tree exists before the bench's
		// session reads it, as it does for canopy's).
		for j := range 2 {
			if (i+j)%2 == 0 {
				// A change to the page first: otherwise the tree canopy
				// kept from the last read answers, and this would time
				// that, not a read.
				if err := rp.touch(ctx, i); err != nil {
					sp.Err = "change the page: " + err.Error()
					return sp
				}
				name, args := p.full()
				fr, err := srv.call(ctx, name, args)
				if err != nil {
					sp.Err = "full snapshot: " + err.Error()
					return sp
				}
				fullT = append(fullT, fr.dur)
				continue
			}
			rr, err := rp.read(ctx)
			if err != nil {
				sp.Err = err.Error()
				return sp
			}
			sp.AXNodes, sp.Frames = rr.AXNodes, rr.Frames
			rawT = append(rawT, rr.Dur)
		}
	}
	sp.FullMS, sp.RawMS = median(fullT), median(rawT)
	return sp
}

// measureClick times one click -n times, each on a freshly loaded page:
// the click's reply and, when it does not show the change, the read after
// it (read). A peer's ref comes from an untimed snapshot (base) taken after
// the load, which is also the baseline of a delta read.
func measureClick(ctx context.Context, o options, p peer, srv *server, base, read func() (string, map[string]any), url string, c clickSpec) speedClick {
	sc := speedClick{Name: c.name, Path: c.path}
	var actT, readT, totT []time.Duration
	for range o.runs {
		name, args := p.navigate(url)
		if _, err := srv.call(ctx, name, args); err != nil {
			sc.Err = "navigate: " + err.Error()
			return sc
		}
		// canopy targets by selector; a peer needs a ref from its snapshot.
		ref := c.step.sel
		if p.name != "canopy" {
			name, args := base()
			snap, err := srv.call(ctx, name, args)
			if err != nil {
				sc.Err = "snapshot: " + err.Error()
				return sc
			}
			ref = findRef(p, snap.text, c.step.target)
			if ref == "" && p.full != nil {
				name, args := p.full()
				if snap, err = srv.call(ctx, name, args); err != nil {
					sc.Err = "full snapshot: " + err.Error()
					return sc
				}
				ref = findRef(p, snap.text, c.step.target)
			}
			if ref == "" {
				sc.Err = fmt.Sprintf("no ref for %s in the snapshot", c.step.target)
				return sc
			}
		}
		var act time.Duration
		var text []string
		for _, tc := range p.act(c.step, ref) {
			rep, err := srv.call(ctx, tc.name, tc.args)
			if err != nil {
				sc.Err = oneLine(err.Error(), 120)
				return sc
			}
			act += rep.dur
			text = append(text, rep.text)
		}
		reply := strings.Join(text, "\n")
		dump(o, p.name, "speed-"+strings.Trim(strings.ReplaceAll(c.path, "/", "_"), "_")+".txt", reply)
		sc.Shown, sc.Missed = c.step.shows(unquote(reply), false), false
		var rd time.Duration
		if !sc.Shown {
			name, args := read()
			rr, err := srv.call(ctx, name, args)
			if err != nil {
				sc.Err = "read after the click: " + oneLine(err.Error(), 100)
				return sc
			}
			rd = rr.dur
			sc.Missed = !c.step.shows(unquote(rr.text), true)
			dump(o, p.name, "speed-"+strings.Trim(strings.ReplaceAll(c.path, "/", "_"), "_")+".read.txt", rr.text)
		}
		actT, readT, totT = append(actT, act), append(readT, rd), append(totT, act+rd)
	}
	sc.MS, sc.ActMS, sc.ReadMS = median(totT), median(actT), median(readT)
	return sc
}

// argsNote prints a call's arguments briefly, " {a: 1}", or "" for none.
func argsNote(args map[string]any) string {
	if len(args) == 0 {
		return ""
	}
	var kv []string
	for k, v := range args {
		kv = append(kv, fmt.Sprintf("%s: %v", k, v))
	}
	slices.Sort(kv)
	return " {" + strings.Join(kv, ", ") + "}"
}

// unquote undoes the escaping of quotes in a reply that is JSON
// (agent-browser's delta: "- textbox \"Name\" [ref=e5]"), so that the
// checks read its lines as they read a text snapshot's.
func unquote(text string) string { return strings.ReplaceAll(text, `\"`, `"`) }
