//go:build linux

package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Targets canopy is held to, against the peers.
const (
	tokenTarget = 0.6 // canopy snapshot tokens ≤ 0.6× the best complete peer's
	speedTarget = 0.5 // canopy snapshot ms ≤ 0.5× the fastest peer's
)

// printTable prints one markdown table: a row per measure, a column per
// server, and a last column comparing canopy with the best peer.
func printTable(w io.Writer, o options, rs []*result) {
	head := []string{"measure"}
	for _, r := range rs {
		head = append(head, r.Server)
	}
	head = append(head, "canopy ÷ best peer")
	rows := [][]string{head, nil}
	add := func(label string, cell func(r *result) string, ratio string) {
		row := []string{label}
		for _, r := range rs {
			if r.Err != "" && r.StartMS == 0 {
				row = append(row, "—")
			} else {
				row = append(row, cell(r))
			}
		}
		rows = append(rows, append(row, ratio))
	}
	canopy, peersOK := split(rs)

	// Failures first, so the reason is in sight.
	status := []string{"status"}
	for _, r := range rs {
		if r.Err != "" {
			status = append(status, "failed: "+escape(r.Err))
		} else {
			status = append(status, "ok")
		}
	}
	rows = append(rows, append(status, ""))
	add("start ms", func(r *result) string { return num(r.StartMS) }, "")
	add("tools/list tok (bytes, tools)", func(r *result) string {
		return fmt.Sprintf("%s (%s B, %d)", commas(r.ToolsTokens), commas(r.ToolsBytes), r.Tools)
	}, ratio(canopy, peersOK, func(r *result) (float64, bool) { return float64(r.ToolsTokens), r.Tools > 0 }, 0))

	for i, path := range o.pages {
		pg := func(r *result) (page, bool) {
			if i >= len(r.Pages) {
				return page{}, false
			}
			return r.Pages[i], r.Pages[i].Err == ""
		}
		cellOr := func(f func(p page) string) func(r *result) string {
			return func(r *result) string {
				p, ok := pg(r)
				if !ok {
					if p.Err != "" {
						return "error: " + escape(oneLine(p.Err, 80))
					}
					return "—"
				}
				return f(p)
			}
		}
		name := shortPath(path)
		add(name+" snapshot tok (text B / reply B)", cellOr(func(p page) string {
			return fmt.Sprintf("%s (%s / %s)", commas(p.Tokens), commas(p.Bytes), commas(p.ReplyBytes))
		}), ratio(canopy, peersOK, func(r *result) (float64, bool) {
			p, ok := pg(r)
			complete := ok && p.Found == p.Total && len(p.Leaked) == 0
			return float64(p.Tokens), complete || r == canopy && ok
		}, tokenTarget))
		add(name+" full snapshot tok (markers)", cellOr(func(p page) string {
			s := fmt.Sprintf("%s (%d/%d)", commas(p.FullTokens), p.FullFound, p.Total)
			if p.FullLeaks > 0 {
				s += fmt.Sprintf(" %d leaked", p.FullLeaks)
			}
			return s
		}), ratio(canopy, peersOK, func(r *result) (float64, bool) {
			p, ok := pg(r)
			complete := ok && p.FullFound == p.Total && p.FullLeaks == 0
			return float64(p.FullTokens), complete || r == canopy && ok
		}, tokenTarget))
		add(name+" snapshot ms (navigate ms)", cellOr(func(p page) string {
			return fmt.Sprintf("%s (%s)", num(p.SnapMS), num(p.NavMS))
		}), ratio(canopy, peersOK, func(r *result) (float64, bool) {
			p, ok := pg(r)
			return p.SnapMS, ok
		}, speedTarget))
		add(name+" markers found (leaked)", cellOr(func(p page) string {
			s := fmt.Sprintf("%d/%d", p.Found, p.Total)
			if len(p.Leaked) > 0 {
				s += fmt.Sprintf(" (%d leaked)", len(p.Leaked))
			}
			if len(p.Missing) > 0 {
				m := p.Missing
				more := ""
				if len(m) > 3 {
					m, more = m[:3], fmt.Sprintf(" +%d", len(m)-3)
				}
				s += " missing " + escape(strings.Join(m, ", ")) + more
			}
			return s
		}), "")
	}

	add("actions: reply tok, shows change? (+ follow-up snapshot tok)", func(r *result) string { return "" }, "")
	for i, t := range actionTasks {
		add(t.name+" ("+t.path+")", taskCell(i, func(r *result) []taskResult { return r.Actions }, func(x taskResult) string {
			s := fmt.Sprintf("%s, %s", commas(x.Reply), yesNo(x.Shown == 1))
			if x.Followups > 0 {
				s += fmt.Sprintf(" (+ %s", commas(x.Follow))
				if len(x.Missed) > 0 {
					s += ", change not shown"
				}
				s += ")"
			}
			return s
		}), ratio(canopy, peersOK, func(r *result) (float64, bool) {
			if i >= len(r.Actions) || r.Actions[i].Err != "" || len(r.Actions[i].Missed) > 0 {
				return 0, false
			}
			return float64(r.Actions[i].Reply + r.Actions[i].Follow), true
		}, 0))
	}
	if len(rs) > 0 && len(rs[0].Tasks) > 0 {
		add("app tasks: observation tok (calls); replies showing the change", func(r *result) string { return "" }, "")
	}
	for i, t := range appTasks {
		if len(rs) == 0 || i >= len(rs[0].Tasks) {
			break
		}
		add(fmt.Sprintf("%s (%d steps)", t.name, len(t.steps)), taskCell(i, func(r *result) []taskResult { return r.Tasks }, func(x taskResult) string {
			s := fmt.Sprintf("%s (%d); %d/%d", commas(x.Tokens), x.Calls, x.Shown, x.Steps)
			if len(x.Missed) > 0 {
				s += " (not shown even after a snapshot: step " + strings.Join(x.Missed, ", ") + ")"
			}
			return s
		}), ratio(canopy, peersOK, func(r *result) (float64, bool) {
			if i >= len(r.Tasks) || r.Tasks[i].Err != "" || len(r.Tasks[i].Missed) > 0 {
				return 0, false
			}
			return float64(r.Tasks[i].Tokens), true
		}, 0))
	}

	for _, row := range rows {
		if row == nil {
			row = make([]string, len(head))
			for i := range row {
				row[i] = "---"
			}
		}
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
	fmt.Fprintf(w, "\nmedians of %d runs; tok = o200k tokens of the text content; reply B = the JSON-RPC result as sent. "+
		"Ratios: tokens against the best peer whose snapshot has every marker and leaks none (target ≤ %.1f), "+
		"snapshot ms against the fastest peer (target ≤ %.1f); full snapshots: playwright and chrome-devtools have no budget "+
		"(full = default), agent-browser's full is interactive=false; actions and tasks against the smallest total of a peer "+
		"that saw every change.\n", o.runs, tokenTarget, speedTarget)
}

// taskCell is a cell for the i-th task of a server's list: its value, or
// the step that failed and why.
func taskCell(i int, list func(r *result) []taskResult, f func(t taskResult) string) func(r *result) string {
	return func(r *result) string {
		l := list(r)
		if i >= len(l) {
			return "—"
		}
		if l[i].Err != "" {
			return "failed: " + escape(oneLine(l[i].Err, 90))
		}
		return f(l[i])
	}
}

// split returns canopy's result (nil if not run or failed) and the peers
// that ran.
func split(rs []*result) (*result, []*result) {
	var c *result
	var ps []*result
	for _, r := range rs {
		switch {
		case r.Server == "canopy":
			if r.Err == "" || r.StartMS > 0 {
				c = r
			}
		case r.Err == "" || r.StartMS > 0:
			ps = append(ps, r)
		}
	}
	return c, ps
}

// ratio returns canopy's value over the best (lowest) eligible peer's, and
// whether it meets target (when target > 0).
func ratio(c *result, ps []*result, val func(r *result) (float64, bool), target float64) string {
	if c == nil || len(ps) == 0 {
		return "—"
	}
	cv, ok := val(c)
	if !ok {
		return "—"
	}
	best, who := 0.0, ""
	for _, p := range ps {
		if v, ok := val(p); ok && v > 0 && (who == "" || v < best) {
			best, who = v, p.Server
		}
	}
	if who == "" {
		return "no complete peer"
	}
	q := cv / best
	s := fmt.Sprintf("%.2f vs %s", q, who)
	if target > 0 {
		if q <= target {
			s += fmt.Sprintf(" ✓ (≤%.1f)", target)
		} else {
			s += fmt.Sprintf(" ✗ (≤%.1f)", target)
		}
	}
	return s
}

func shortPath(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 && strings.HasPrefix(p, "/pydoc/") {
		return "pydoc " + p[i+1:]
	}
	return p
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func num(f float64) string {
	switch {
	case f >= 100:
		return commas(int(f + 0.5))
	case f >= 10:
		return strconv.FormatFloat(f, 'f', 1, 64)
	default:
		return strconv.FormatFloat(f, 'f', 2, 64)
	}
}

func commas(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
