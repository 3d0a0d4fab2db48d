//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/desktop"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// checkBox is the check box the action benchmark clicks (and clicks back):
// the first enabled "checkbutton" of gtk3-widget-factory's first page that
// is not mixed (clicking a mixed one does not bring it back to mixed).
const checkBox = `app:gtk3-widget-factory role:checkbox name:checkbutton state:enabled !state:mixed nth:1`

type results struct {
	Runs      int            `json:"runs"`
	Desktop   string         `json:"desktop"`
	Reads     []readResult   `json:"reads"`
	Snapshots []snapResult   `json:"snapshots"`
	Actions   []actionResult `json:"actions"`
	Notes     []string       `json:"notes,omitempty"`
}

// readResult is one app's whole tree, read by canopy and by pyatspi.
type readResult struct {
	App string `json:"app"`
	// Nodes canopy read (the app root included), min and max over the runs.
	Nodes    int     `json:"nodes"`
	NodesMax int     `json:"nodes_max"`
	CanopyMS float64 `json:"canopy_ms"`
	// The two parts of CanopyMS: ReadApp (Cache.GetItems plus walking
	// what the cache misses) and Fill (GetExtents of every node, all in
	// flight at once).
	TreeMS    float64 `json:"canopy_tree_ms"`
	ExtentsMS float64 `json:"canopy_extents_ms"`
	PyNodes   int     `json:"pyatspi_nodes"`
	PyMS      float64 `json:"pyatspi_ms"`
	PyFirstMS float64 `json:"pyatspi_first_ms"` // the first walk of the process, untimed in PyMS
	PyErrors  int     `json:"pyatspi_errors"`
	Speedup   float64 `json:"speedup"` // PyMS / CanopyMS
}

// snapResult is desktop.Snapshot of the whole desktop.
type snapResult struct {
	Desktop string `json:"desktop"` // which apps were up
	Nodes   int    `json:"nodes"`
	// Snapshot plus the default tree.Format: the first of a fresh
	// Desktop, and the next one.
	ColdMS        float64 `json:"cold_ms"`
	AgainMS       float64 `json:"again_ms"`
	FullBytes     int     `json:"full_bytes"`
	FullTokens    int     `json:"full_tokens"`
	DefaultBytes  int     `json:"default_bytes"`
	DefaultTokens int     `json:"default_tokens"`
}

// actionResult is one session.Run of a click, with its diff reply.
type actionResult struct {
	Desktop     string  `json:"desktop"`
	Step        string  `json:"step"`
	ReplyTokens int     `json:"reply_tokens"`
	ReplyBytes  int     `json:"reply_bytes"`
	ReadMS      float64 `json:"read_ms"`
	ActMS       float64 `json:"act_ms"`
	SettleMS    float64 `json:"settle_ms"`
	DiffMS      float64 `json:"diff_ms"`
	TotalMS     float64 `json:"total_ms"`
	Reply       string  `json:"reply"` // the median run's
}

// run measures every app alone, then all of them together.
func (b *bench) run(ctx context.Context) (*results, error) {
	res := &results{Runs: b.runs}
	if err := b.setup(ctx); err != nil {
		return nil, err
	}
	if b.vd != nil {
		res.Desktop = "virtual (vdesk: Xvfb " + b.vd.Display() + ", private session bus)"
	} else {
		res.Desktop = "reused (DISPLAY " + os.Getenv("DISPLAY") + ")"
	}
	var avail []spec
	for _, s := range specs() {
		if _, err := exec.LookPath(s.argv[0]); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s skipped: %s is not installed", s.label, s.argv[0]))
			continue
		}
		avail = append(avail, s)
	}
	if len(avail) == 0 {
		return res, errors.New("none of the applications is installed (gtk-3-examples, gtk-4-examples, libreoffice-writer libreoffice-gtk3)")
	}

	// One at a time: each app's snapshot is that app alone.
	for _, s := range avail {
		p, err := b.start(s)
		if err != nil {
			return res, err
		}
		if err := b.waitWindow(ctx, p); err != nil {
			return res, err
		}
		r, err := b.measureRead(ctx, p)
		if err != nil {
			return res, fmt.Errorf("%s: %w", s.label, err)
		}
		res.Reads = append(res.Reads, r)
		sr, err := b.measureSnapshot(ctx, s.label)
		if err != nil {
			return res, fmt.Errorf("%s: %w", s.label, err)
		}
		res.Snapshots = append(res.Snapshots, sr)
		if s.key == "gtk3" {
			ar, err := b.measureAction(ctx, s.label)
			if err != nil {
				return res, fmt.Errorf("%s: %w", s.label, err)
			}
			res.Actions = append(res.Actions, ar...)
		}
		if err := b.stop(ctx, p); err != nil {
			return res, err
		}
	}

	// All together: what an agent's snapshot and action cost on a busier
	// desktop.
	if len(avail) < 2 {
		return res, nil
	}
	var ps []*proc
	var labels []string
	for _, s := range avail {
		p, err := b.start(s)
		if err != nil {
			return res, err
		}
		ps = append(ps, p)
		labels = append(labels, s.key)
	}
	for _, p := range ps {
		if err := b.waitWindow(ctx, p); err != nil {
			return res, err
		}
	}
	label := "together: " + strings.Join(labels, " + ")
	sr, err := b.measureSnapshot(ctx, label)
	if err != nil {
		return res, fmt.Errorf("%s: %w", label, err)
	}
	res.Snapshots = append(res.Snapshots, sr)
	if slices.ContainsFunc(avail, func(s spec) bool { return s.key == "gtk3" }) {
		ar, err := b.measureAction(ctx, label)
		if err != nil {
			return res, fmt.Errorf("%s: %w", label, err)
		}
		res.Actions = append(res.Actions, ar...)
	}
	for _, p := range ps {
		if err := b.stop(ctx, p); err != nil {
			return res, err
		}
	}
	return res, nil
}

// measureRead times canopy's read of the app's whole tree — ReadApp (the
// app's Cache, plus a walk of what it misses) and Fill with extents — and
// pyatspi's walk of the same tree, interleaved run by run so that both see
// the same load (the order alternates). The first read of each is a
// warm-up, untimed.
func (b *bench) measureRead(ctx context.Context, p *proc) (readResult, error) {
	r := readResult{App: p.spec.label}
	py, err := b.startWalker(ctx, p.pid)
	if err != nil {
		return r, err
	}
	defer py.close()
	r.PyFirstMS = py.first.FirstMS
	r.PyErrors = py.first.Errors
	if _, _, _, err := b.canopyRead(ctx, p.root); err != nil { // warm-up
		return r, err
	}
	var total, cache, fill, pyT []time.Duration
	var counts, pyCounts []int
	for i := range b.runs {
		for k := range 2 {
			if (i+k)%2 == 0 {
				n, read, ext, err := b.canopyRead(ctx, p.root)
				if err != nil {
					return r, err
				}
				total, cache, fill = append(total, read+ext), append(cache, read), append(fill, ext)
				counts = append(counts, n)
			} else {
				w, err := py.walk()
				if err != nil {
					return r, err
				}
				pyT = append(pyT, time.Duration(w.MS*float64(time.Millisecond)))
				pyCounts = append(pyCounts, w.Nodes)
				r.PyErrors += w.Errors
			}
		}
	}
	r.CanopyMS, r.TreeMS, r.ExtentsMS = ms(median(total)), ms(median(cache)), ms(median(fill))
	r.Nodes, r.NodesMax = slices.Min(counts), slices.Max(counts)
	r.PyMS = ms(median(pyT))
	r.PyNodes = slices.Max(pyCounts)
	r.Speedup = r.PyMS / r.CanopyMS
	b.logf("%s: canopy %v (%d–%d nodes), pyatspi %v (first %.1f ms, %v nodes, %d errors)",
		p.spec.label, total, r.Nodes, r.NodesMax, pyT, r.PyFirstMS, pyCounts, r.PyErrors)
	return r, nil
}

// canopyRead reads an app's whole tree as canopy does and returns its
// size and the time of the tree read and of the extents.
func (b *bench) canopyRead(ctx context.Context, root atspi.Ref) (int, time.Duration, time.Duration, error) {
	conn := b.d.Conn()
	start := time.Now()
	t, err := conn.ReadApp(ctx, root, atspi.ReadOptions{})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("canopy read: %w", err)
	}
	items := make([]*atspi.Item, 0, len(t.Items))
	for _, it := range t.Items {
		items = append(items, it)
	}
	read := time.Since(start)
	if err := conn.Fill(ctx, items, atspi.FillOptions{Extents: true}); err != nil {
		return 0, 0, 0, fmt.Errorf("canopy read, extents: %w", err)
	}
	return len(t.Items), read, time.Since(start) - read, nil
}

// walker is pyatspi_walk.py running with --serve: one walk per request.
type walker struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	err   *bytes.Buffer
	first pyWalk
}

// pyWalk is one JSON line of pyatspi_walk.py --serve.
type pyWalk struct {
	Name    string  `json:"name"`
	FirstMS float64 `json:"cold_ms"`
	MS      float64 `json:"ms"`
	Nodes   int     `json:"nodes"`
	Errors  int     `json:"errors"`
	Error   string  `json:"error"`
}

// startWalker runs the walk script under Debian's python for the app with
// process id pid, and waits for its first (cold) walk.
func (b *bench) startWalker(ctx context.Context, pid int) (*walker, error) {
	cmd := exec.CommandContext(ctx, python, "-c", walkScript, "--pid", strconv.Itoa(pid), "--serve")
	var env []string
	for _, kv := range appEnv() {
		if k, _, _ := strings.Cut(kv, "="); k != "PYTHONPATH" && k != "PYTHONHOME" {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	w := &walker{cmd: cmd, err: &bytes.Buffer{}}
	cmd.Stderr = w.err
	var err error
	if w.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.out = bufio.NewScanner(stdout)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pyatspi: %w", err)
	}
	if w.first, err = w.next(); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *walker) walk() (pyWalk, error) {
	if _, err := io.WriteString(w.in, "walk\n"); err != nil {
		return pyWalk{}, fmt.Errorf("pyatspi: %w: %s", err, strings.TrimSpace(w.err.String()))
	}
	return w.next()
}

func (w *walker) next() (pyWalk, error) {
	var x pyWalk
	if !w.out.Scan() {
		return x, fmt.Errorf("pyatspi walk ended: %v %s", w.out.Err(), strings.TrimSpace(w.err.String()))
	}
	if err := json.Unmarshal(w.out.Bytes(), &x); err != nil {
		return x, fmt.Errorf("pyatspi walk: %w: %s", err, w.out.Text())
	}
	if x.Error != "" {
		return x, fmt.Errorf("pyatspi walk: %s", x.Error)
	}
	return x, nil
}

func (w *walker) close() {
	w.in.Close()
	w.cmd.Wait()
}

// measureSnapshot times desktop.Snapshot of the whole desktop plus the
// default formatting, and sizes the full and the default text. A Desktop
// reuses the subtree of an app that sent no event since its last read, so
// each run opens a fresh Desktop (untimed) and times its first snapshot
// ("cold": every app read) and a second one right after ("again": what a
// quiet app costs the next time).
func (b *bench) measureSnapshot(ctx context.Context, label string) (snapResult, error) {
	r := snapResult{Desktop: label}
	var cold, again []time.Duration
	var snap *tree.Snapshot
	var def string
	for i := range b.runs + 1 { // the first run warms up, untimed
		d, err := desktop.Open(ctx, desktop.Options{})
		if err != nil {
			return r, err
		}
		var took [2]time.Duration
		for k := range took {
			start := time.Now()
			s, err := d.Snapshot(ctx, false)
			if err != nil {
				d.Close()
				return r, fmt.Errorf("snapshot: %w", err)
			}
			f := tree.Format(s, tree.Options{})
			took[k] = time.Since(start)
			snap, def = s, f
		}
		d.Close()
		if i > 0 {
			cold, again = append(cold, took[0]), append(again, took[1])
		}
	}
	full := tree.Format(snap, tree.Options{Full: true})
	r.ColdMS, r.AgainMS = ms(median(cold)), ms(median(again))
	r.Nodes = tree.Count(snap.Root)
	r.FullBytes, r.FullTokens = len(full), b.tok.Count(full)
	r.DefaultBytes, r.DefaultTokens = len(def), b.tok.Count(def)
	b.logf("snapshot %s: cold %v, again %v", label, cold, again)
	if b.verbose {
		b.logf("snapshot %s, default text:\n%s", label, def)
	}
	return r, nil
}

// measureAction clicks the check box and clicks it back through a
// session opened as every surface opens one (canopy.Open), -n times each,
// and reports the medians of each step.
func (b *bench) measureAction(ctx context.Context, label string) ([]actionResult, error) {
	// The same click back and forth is the point here: stuck detection,
	// which would refuse the cycle, is off.
	sess, err := canopy.Open(ctx, canopy.Config{Desktop: true, Session: session.Options{Surface: "bench", Stuck: session.StuckOff}})
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	if b.verbose {
		r, err := sess.Run(ctx, action.Action{Kind: action.Find, Target: "role:checkbox"})
		if err != nil {
			return nil, fmt.Errorf("find: %w", err)
		}
		b.logf("find role:checkbox:\n%s", r.Text)
	}
	click := action.Action{Kind: action.Click, Target: checkBox}
	steps := []string{"click check box", "click it back"}
	replies := make([][]session.Reply, len(steps))
	for i := range b.runs + 1 { // the first pair warms up, untimed
		for j := range steps {
			r, err := sess.Run(ctx, click)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", steps[j], err)
			}
			if i > 0 {
				replies[j] = append(replies[j], r)
			}
			if b.verbose && i <= 1 {
				b.logf("%s (%s): %s total, reply:\n%s", steps[j], label, r.Timing.Total, r.Text)
			}
		}
	}
	var out []actionResult
	for j, rs := range replies {
		pick := func(f func(session.Timing) time.Duration) float64 {
			d := make([]time.Duration, len(rs))
			for i, r := range rs {
				d[i] = f(r.Timing)
			}
			return ms(median(d))
		}
		// The reply shown is the median run's by total time.
		sorted := slices.Clone(rs)
		slices.SortFunc(sorted, func(a, b session.Reply) int { return int(a.Timing.Total - b.Timing.Total) })
		m := sorted[len(sorted)/2]
		out = append(out, actionResult{
			Desktop: label, Step: steps[j],
			ReplyTokens: b.tok.Count(m.Text), ReplyBytes: len(m.Text),
			ReadMS:   pick(func(t session.Timing) time.Duration { return t.Read }),
			ActMS:    pick(func(t session.Timing) time.Duration { return t.Act }),
			SettleMS: pick(func(t session.Timing) time.Duration { return t.Settle }),
			DiffMS:   pick(func(t session.Timing) time.Duration { return t.Diff }),
			TotalMS:  pick(func(t session.Timing) time.Duration { return t.Total }),
			Reply:    m.Text,
		})
	}
	return out, nil
}

// markdown prints the tables.
func (r *results) markdown(w io.Writer) {
	fmt.Fprintf(w, "Desktop: %s. Apps started one at a time (\"together\": all three up at once). Times are medians of %d runs.\n\n", r.Desktop, r.Runs)
	if len(r.Reads) > 0 {
		fmt.Fprintln(w, "Whole tree of one app: role, name, states and extents of every node (canopy: ReadApp + Fill; pyatspi: a walk, interleaved)")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| app | nodes canopy | nodes pyatspi | canopy ms | (tree + extents) | pyatspi ms | speedup | pyatspi first walk ms |")
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|")
		for _, x := range r.Reads {
			nodes := strconv.Itoa(x.Nodes)
			if x.NodesMax != x.Nodes {
				nodes += "–" + strconv.Itoa(x.NodesMax)
			}
			fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.0f + %.0f | %.1f | %.1f× | %.1f |\n", x.App, nodes, x.PyNodes,
				x.CanopyMS, x.TreeMS, x.ExtentsMS, x.PyMS, x.Speedup, x.PyFirstMS)
		}
		fmt.Fprintln(w)
	}
	if len(r.Snapshots) > 0 {
		fmt.Fprintln(w, "desktop.Snapshot of the whole desktop (on-screen objects only) + default format; first = a fresh Desktop's first, again = its next (quiet apps reused)")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| desktop | nodes | snapshot ms (first) | snapshot ms (again) | full bytes | full tok | default bytes | default tok |")
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|")
		for _, x := range r.Snapshots {
			fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %d | %d | %d | %d |\n", x.Desktop, x.Nodes, x.ColdMS, x.AgainMS,
				x.FullBytes, x.FullTokens, x.DefaultBytes, x.DefaultTokens)
		}
		fmt.Fprintln(w)
	}
	if len(r.Actions) > 0 {
		fmt.Fprintln(w, "Action → diff reply (session.Run, desktop source) on gtk3-widget-factory: `click "+checkBox+"`")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| desktop | step | reply tok | reply bytes | read ms | act ms | settle ms | diff ms | total ms |")
		fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|")
		for _, x := range r.Actions {
			fmt.Fprintf(w, "| %s | %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f |\n", x.Desktop, x.Step,
				x.ReplyTokens, x.ReplyBytes, x.ReadMS, x.ActMS, x.SettleMS, x.DiffMS, x.TotalMS)
		}
		fmt.Fprintln(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "- "+n)
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
