//go:build linux

package main

import (
	"fmt"
	"io"
	"strings"
)

// speedRow is one printed row of the speed section: a cell per server, the
// target and how canopy fares against it.
type speedRow struct {
	Measure string            `json:"measure"`
	Cells   map[string]string `json:"cells"` // by server
	Target  string            `json:"target"`
	Result  string            `json:"result"`
	Met     *bool             `json:"met,omitempty"` // nil: no target, or not measured
}

// speedRows builds the speed section's rows from the results.
func speedRows(o options, rs []*result) []speedRow {
	canopy, peersOK := split(rs)
	var rows []speedRow
	add := func(measure string, cell func(r *result) string, target, res string, met *bool) {
		row := speedRow{Measure: measure, Cells: map[string]string{}, Target: target, Result: res, Met: met}
		for _, r := range rs {
			c := "—"
			if r.Speed != nil {
				c = cell(r)
			}
			row.Cells[r.Server] = c
		}
		rows = append(rows, row)
	}
	// fastest returns the lowest positive value of the peers and whose.
	fastest := func(val func(r *result) (float64, bool)) (float64, string) {
		best, who := 0.0, ""
		for _, p := range peersOK {
			if v, ok := val(p); ok && v > 0 && (who == "" || v < best) {
				best, who = v, p.Server
			}
		}
		return best, who
	}
	// against compares canopy's value with the fastest peer's, target ×.
	against := func(val func(r *result) (float64, bool), target float64) (string, *bool) {
		if canopy == nil {
			return "—", nil
		}
		cv, ok := val(canopy)
		best, who := fastest(val)
		if !ok || who == "" {
			return "—", nil
		}
		q := cv / best
		met := q <= target
		return fmt.Sprintf("%.2f× %s %s", q, who, mark(met)), &met
	}

	for _, path := range o.speedPages {
		name := shortPath(path)
		pageMS := func(f func(p page) float64) func(r *result) (float64, bool) {
			return func(r *result) (float64, bool) {
				p, ok := pageOf(r, path)
				return f(p), ok
			}
		}
		snap := pageMS(func(p page) float64 { return p.SnapMS })
		res, met := against(snap, speedTarget)
		add(name+" default snapshot ms", func(r *result) string { return msCell(snap(r)) },
			fmt.Sprintf("≤ %.1f× the fastest peer", speedTarget), res, met)

		// Until the agent has the page: canopy's navigate reply holds it, a
		// peer's does not, so a peer's takes its snapshot after.
		seen := func(r *result) (float64, bool) {
			p, ok := pageOf(r, path)
			if r.Server == "canopy" {
				return p.NavMS, ok
			}
			return p.NavSnapMS, ok
		}
		res, met = against(seen, navTarget)
		if bare, who := fastest(pageMS(func(p page) float64 { return p.NavMS })); who != "" && canopy != nil {
			if cv, ok := seen(canopy); ok {
				res += fmt.Sprintf(" (%.2f× %s's navigate alone)", cv/bare, who)
			}
		}
		add(name+" navigate ms to a reply showing the page (peer: navigate alone, + snapshot)", func(r *result) string {
			p, ok := pageOf(r, path)
			if !ok {
				return msCell(0, false)
			}
			if r.Server == "canopy" {
				return num(p.NavMS)
			}
			return fmt.Sprintf("%s, %s", num(p.NavMS), num(p.NavSnapMS))
		}, "≤ the fastest peer's navigate + snapshot", res, met)

		res, met = "—", nil
		if canopy != nil {
			if sp, ok := speedPageOf(canopy, path); ok && sp.RawMS > 0 {
				q := sp.FullMS / sp.RawMS
				ok := q <= rawTarget
				res, met = fmt.Sprintf("%.2f× %s", q, mark(ok)), &ok
			}
		}
		add(name+" full snapshot ms ÷ its raw CDP reads ms", func(r *result) string {
			sp, ok := speedPageOf(r, path)
			if !ok || r.Server != "canopy" {
				return "—"
			}
			return fmt.Sprintf("%s ÷ %s", num(sp.FullMS), num(sp.RawMS))
		}, fmt.Sprintf("≤ %.1f×", rawTarget), res, met)

		n, frames := axNodes(rs, path)
		add(fmt.Sprintf("%s snapshot ms per 1,000 AX nodes (%s nodes, %d frames)", name, commas(n), frames), func(r *result) string {
			p, ok := pageOf(r, path)
			if !ok || n == 0 {
				return "—"
			}
			s := perK(p.SnapMS, n)
			if sp, ok := speedPageOf(r, path); ok && sp.FullMS > 0 {
				s += " (full " + perK(sp.FullMS, n) + ")"
			}
			return s
		}, "reported", "", nil)
	}

	for i, c := range speedClicks {
		n, _ := axNodes(rs, c.path)
		click := func(r *result) (speedClick, bool) {
			if r.Speed == nil || i >= len(r.Speed.Clicks) || r.Speed.Clicks[i].Err != "" {
				return speedClick{}, false
			}
			return r.Speed.Clicks[i], true
		}
		total := func(r *result) (float64, bool) {
			sc, ok := click(r)
			return sc.MS, ok && !sc.Missed
		}
		target, res, met := "reported", "—", (*bool)(nil)
		if canopy != nil {
			if cv, ok := total(canopy); ok {
				best, who := fastest(total)
				vs := ""
				if who != "" {
					vs = fmt.Sprintf(" (%.2f× %s)", cv/best, who)
				}
				res = num(cv) + " ms" + vs
				if c.budgetMS > 0 {
					ok := cv <= c.budgetMS
					res, met = num(cv)+" ms "+mark(ok)+vs, &ok
				}
			}
		}
		if c.budgetMS > 0 {
			target = fmt.Sprintf("≤ %s ms", num(c.budgetMS))
		}
		add(fmt.Sprintf("%s (%s): ms to a reply showing the change", c.name, c.path), func(r *result) string {
			if r.Speed == nil || i >= len(r.Speed.Clicks) {
				return "—"
			}
			sc := r.Speed.Clicks[i]
			if strings.HasPrefix(sc.Err, "not run") {
				return sc.Err
			}
			if sc.Err != "" {
				return "failed: " + escape(oneLine(sc.Err, 80))
			}
			s := num(sc.MS)
			if !sc.Shown {
				s = fmt.Sprintf("%s + %s read = %s", num(sc.ActMS), num(sc.ReadMS), num(sc.MS))
			}
			if sc.Missed {
				s += " (change not shown)"
			}
			if c.budgetMS == 0 && n > 0 {
				s += "; " + perK(sc.MS, n) + "/1k nodes"
			}
			return s
		}, target, res, met)
	}

	res, met := "—", (*bool)(nil)
	if canopy != nil && canopy.Speed != nil && canopy.Speed.Flow != nil && canopy.Speed.Flow.Err == "" {
		ok := canopy.Speed.FlowMS <= flowBudgetMS && len(canopy.Speed.Flow.Missed) == 0
		res, met = fmt.Sprintf("%.2f s %s", canopy.Speed.FlowMS/1000, mark(ok)), &ok
	}
	add(fmt.Sprintf("%d edits on /grid.html (%d actions): s, calls, replies showing the change", flowEdits, 3*flowEdits), func(r *result) string {
		f := r.Speed.Flow
		switch {
		case f == nil:
			return "not run (-flow-peers)"
		case f.Err != "":
			return "failed: " + escape(oneLine(f.Err, 80))
		}
		s := fmt.Sprintf("%.2f s, %d calls, %d/%d", r.Speed.FlowMS/1000, f.Calls, f.Shown, f.Steps)
		if len(f.Missed) > 0 {
			s += fmt.Sprintf(", %d not shown", len(f.Missed))
		}
		return s
	}, fmt.Sprintf("≤ %d s", flowBudgetMS/1000), res, met)
	return rows
}

// printSpeed prints the speed rows as a markdown table.
func printSpeed(w io.Writer, o options, rs []*result, rows []speedRow) {
	head := []string{"speed"}
	for _, r := range rs {
		head = append(head, r.Server)
	}
	head = append(head, "target", "canopy")
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Repeat(" --- |", len(head)))
	for _, row := range rows {
		line := []string{row.Measure}
		for _, r := range rs {
			line = append(line, row.Cells[r.Server])
		}
		line = append(line, row.Target, row.Result)
		fmt.Fprintln(w, "| "+strings.Join(line, " | ")+" |")
	}
	read := []string{}
	for _, r := range rs {
		if r.Speed != nil {
			read = append(read, r.Server+": "+r.Speed.Read)
		}
	}
	fmt.Fprintf(w, "\nmedians of %d runs, ms of the MCP round trips as the client sees them. A peer's navigate reply holds no page: "+
		"its cell gives the navigate alone, then navigate + snapshot, which is what canopy's is compared with. Clicks: the click's reply, plus the read an agent makes when "+
		"the reply does not show the change (%s). AX nodes: every frame's Accessibility.getFullAXTree, counted by the bench "+
		"over CDP; raw CDP reads: those and one DOMSnapshot.captureSnapshot, in parallel, timed by the bench beside canopy.\n",
		o.runs, strings.Join(read, ", "))
}

// pageOf returns a server's measures of the page at path.
func pageOf(r *result, path string) (page, bool) {
	for _, p := range r.Pages {
		if p.Path == path {
			return p, p.Err == ""
		}
	}
	return page{}, false
}

// speedPageOf returns a server's speed measures of the page at path.
func speedPageOf(r *result, path string) (speedPage, bool) {
	if r.Speed == nil {
		return speedPage{}, false
	}
	for _, p := range r.Speed.Pages {
		if p.Path == path {
			return p, p.Err == ""
		}
	}
	return speedPage{}, false
}

// axNodes returns the AX node and frame counts of the page at path, as
// canopy's run counted them, else the first server's that did.
func axNodes(rs []*result, path string) (int, int) {
	for _, pass := range []bool{true, false} {
		for _, r := range rs {
			if pass != (r.Server == "canopy") {
				continue
			}
			if sp, ok := speedPageOf(r, path); ok && sp.AXNodes > 0 {
				return sp.AXNodes, sp.Frames
			}
		}
	}
	return 0, 0
}

// msCell formats a measured ms value, or "—".
func msCell(v float64, ok bool) string {
	if !ok {
		return "—"
	}
	return num(v)
}

// perK is ms per 1,000 of n nodes.
func perK(ms float64, n int) string { return num(ms / (float64(n) / 1000)) }

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}
