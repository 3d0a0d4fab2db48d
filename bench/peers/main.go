//go:build linux

// Command peers compares canopy's MCP server with other browser MCP servers
// side by side: @playwright/mcp, chrome-devtools-mcp and agent-browser.
//
// Each server is started over stdio with the official Go MCP SDK client, one
// at a time, attached over CDP to a fresh headless Chromium, and driven
// through the same pages of canopy's test site (internal/site). It prints
// one markdown table with, per server: the size of tools/list; per page the
// tokens and bytes of the default snapshot, the whole reply's bytes, the
// navigate and snapshot times (median of -n runs) and how many of the page's
// markers (site.PageMarkers) the snapshot shows or leaks, and the full
// snapshot's tokens; what a few actions on those pages answer (actionTasks:
// check, open a modal, type, select, add a list item), with the follow-up
// snapshot an agent needs when the answer does not show the change; and
// the observation tokens and calls of a scripted task on each third-party
// app of internal/thirdparty (appTasks: TodoMVC, Swagger UI, JSONEditor).
// A second table, the speed section (speed.go), holds issue 17's timing
// targets: snapshot and navigate ms against the fastest peer, canopy's full
// snapshot against the raw CDP reads it needs, clicks until a reply shows
// the change, a 20-edit flow on the grid, and ms per 1,000 AX nodes on a
// 10,000-row table and a page of 50 frames.
//
// Install the peers (npm, outside the repository) and build canopy, then run:
//
//	bench/peers/install.sh          # into ${CANOPY_PEERS_DIR:-~/.cache/canopy-peers}
//	go run ./bench/peers -n 5 [-peers canopy,playwright,chrome-devtools,agent-browser] [-dir DIR] [-json FILE] [-dump DIR]
//	go run ./bench/peers -n 3 -main=false [-speed-pages /table.html,...] [-flow-peers]   # the speed section alone
//
// Each run builds canopy from this checkout into DIR/canopy first, unless
// -canopy names a binary to use as is.
//
// A server that fails to start, errors or hangs is reported in its column
// with a one-line reason; every call has a timeout (-timeout).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/canopy-dev/canopy/internal/chromium"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/internal/thirdparty"
	"github.com/canopy-dev/canopy/tokens"
)

type options struct {
	runs     int
	dir      string
	chromium string
	timeout  time.Duration
	pages    []string
	dump     string
	canopy   string
	// speedPages are the pages of the speed section (speed.go), none when
	// it is off; flowPeers runs its 20-edit flow on the peers too.
	speedPages []string
	flowPeers  bool
	// noMain leaves out the main section (the pages' tokens, the actions,
	// the app tasks): -main=false, with the speed section on, runs it alone.
	noMain bool
}

func main() {
	var o options
	defDir := os.Getenv("CANOPY_PEERS_DIR")
	if defDir == "" {
		home, _ := os.UserHomeDir()
		defDir = filepath.Join(home, ".cache", "canopy-peers")
	}
	defChromium := os.Getenv("CANOPY_CHROMIUM")
	if defChromium == "" {
		defChromium = "/usr/bin/chromium"
	}
	var names []string
	for _, p := range peers {
		names = append(names, p.name)
	}
	flag.IntVar(&o.runs, "n", 5, "runs per page and for the click (medians are printed)")
	peerList := flag.String("peers", strings.Join(names, ","), "servers to compare, comma-separated")
	flag.StringVar(&o.dir, "dir", defDir, "folder bench/peers/install.sh installed into")
	flag.StringVar(&o.chromium, "chromium", defChromium, "Chromium binary")
	flag.DurationVar(&o.timeout, "timeout", 60*time.Second, "timeout of each MCP call (and of a server's start)")
	pageList := flag.String("pages", "", "pages to measure, comma-separated (default: the perception pages)")
	jsonOut := flag.String("json", "", "also write the results as JSON to this file (- for stdout)")
	flag.StringVar(&o.canopy, "canopy", "", "canopy binary to use as is (default: build this checkout into DIR/canopy)")
	flag.StringVar(&o.dump, "dump", "", "write every snapshot and click reply to this folder")
	mainSection := flag.Bool("main", true, "measure the main section: tokens per page, actions, app tasks")
	speed := flag.Bool("speed", true, "measure the speed section: big pages, click replies, the 20-edit flow")
	speedList := flag.String("speed-pages", strings.Join(speedPages(), ","), "pages of the speed section, comma-separated (measured as -pages too)")
	flag.BoolVar(&o.flowPeers, "flow-peers", false, "run the 20-edit flow on the peers too (a snapshot of the 1,000-row grid per step)")
	flag.Parse()

	o.pages = []string{"/login.html", "/frames.html", "/cross.html", "/shadow.html", "/table.html"}
	if site.HasPyDoc() {
		o.pages = append(o.pages, site.PyDocOSPath)
	}
	if *pageList != "" {
		o.pages = strings.Split(*pageList, ",")
	}
	if !*mainSection && *speed {
		o.noMain, o.pages = true, nil
	}
	if *speed {
		o.speedPages = strings.Split(*speedList, ",")
		for _, p := range o.speedPages {
			if !slices.Contains(o.pages, p) {
				o.pages = append(o.pages, p)
			}
		}
	}
	var chosen []peer
	for _, n := range strings.Split(*peerList, ",") {
		i := slices.IndexFunc(peers, func(p peer) bool { return p.name == strings.TrimSpace(n) })
		if i < 0 {
			fmt.Fprintf(os.Stderr, "peers: unknown server %q (have %s)\n", n, strings.Join(names, ", "))
			os.Exit(1)
		}
		chosen = append(chosen, peers[i])
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	results, err := run(ctx, o, chosen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
	if !o.noMain {
		printTable(os.Stdout, o, results)
	}
	if len(o.speedPages) > 0 {
		rows := speedRows(o, results)
		for _, r := range results {
			if r.Server == "canopy" && r.Speed != nil {
				r.Speed.Rows = rows
			}
		}
		fmt.Println()
		printSpeed(os.Stdout, o, results, rows)
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(results, "", "  ")
		b = append(b, '\n')
		if *jsonOut == "-" {
			os.Stdout.Write(b)
		} else if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "peers:", err)
			os.Exit(1)
		}
	}
}

func run(ctx context.Context, o options, chosen []peer) ([]*result, error) {
	s, err := site.Serve(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// The third-party apps; without them the app tasks are left out.
	var apps *thirdparty.Server
	if mods, err := thirdparty.NodeModules(); err != nil {
		logf("no app tasks: %v", err)
	} else if apps, err = thirdparty.Serve(ctx, mods); err != nil {
		return nil, err
	} else {
		defer apps.Close()
	}
	tok, err := tokens.New()
	if err != nil {
		return nil, err
	}
	if o.canopy == "" && slices.ContainsFunc(chosen, func(p peer) bool { return p.name == "canopy" }) {
		o.canopy = filepath.Join(o.dir, "canopy")
		logf("building %s", o.canopy)
		build := exec.CommandContext(ctx, "go", "build", "-o", o.canopy, "github.com/canopy-dev/canopy/cmd/canopy")
		if out, err := build.CombinedOutput(); err != nil {
			// An older binary may still be there; say so loudly.
			logf("go build canopy: %v: %s", err, oneLine(string(out), 200))
		}
	}
	var results []*result
	for _, p := range chosen {
		logf("%s: starting", p.name)
		r := runPeer(ctx, o, p, s, apps, tok)
		if r.Err != "" {
			logf("%s: failed: %s", p.name, r.Err)
		}
		results = append(results, r)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return results, nil
}

// result is one server's measurements.
type result struct {
	Server      string  `json:"server"`
	Err         string  `json:"error,omitempty"` // the server could not be measured
	StartMS     float64 `json:"start_ms"`
	Protocol    string  `json:"protocol"` // the MCP version negotiated
	Tools       int     `json:"tools"`
	ToolsTokens int     `json:"tools_tokens"`
	ToolsBytes  int     `json:"tools_bytes"`
	Pages       []page  `json:"pages"`
	// Actions are the per-action measures (actionTasks), Tasks the
	// scripted tasks on the third-party apps (appTasks).
	Actions []taskResult `json:"actions"`
	Tasks   []taskResult `json:"tasks"`
	// Speed is the speed section (speed.go), nil when it is off.
	Speed *speedResult `json:"speed,omitempty"`
}

type page struct {
	Path       string   `json:"path"`
	Err        string   `json:"error,omitempty"`
	Tokens     int      `json:"tokens"`      // o200k tokens of the default snapshot's text content
	FullTokens int      `json:"full_tokens"` // of the full snapshot (the default one for a server without a budget)
	FullFound  int      `json:"full_markers_found"`
	FullLeaks  int      `json:"full_markers_leaked"`
	Bytes      int      `json:"bytes"`       // bytes of that text
	ReplyBytes int      `json:"reply_bytes"` // bytes of the JSON-RPC result as sent
	NavTokens  int      `json:"navigate_tokens"`
	NavMS      float64  `json:"navigate_ms"`
	SnapMS     float64  `json:"snapshot_ms"`
	NavSnapMS  float64  `json:"navigate_snapshot_ms"` // median of navigate + snapshot
	Found      int      `json:"markers_found"`
	Total      int      `json:"markers_total"`
	Missing    []string `json:"missing,omitempty"`
	Leaked     []string `json:"leaked,omitempty"`
}

func runPeer(ctx context.Context, o options, p peer, s *site.Site, apps *thirdparty.Server, tok *tokens.Counter) *result {
	r := &result{Server: p.name}
	fail := func(err error) *result { r.Err = oneLine(err.Error(), 160); return r }

	work, err := os.MkdirTemp("", "canopy-peers-"+p.name+"-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(work)
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	br, err := chromium.Start(sctx, chromium.Options{Exec: o.chromium})
	cancel()
	if err != nil {
		return fail(err)
	}
	defer br.Close()
	e := env{dir: o.dir, canopy: o.canopy, work: work, cdp: br}
	cmd, err := p.command(e)
	if err != nil {
		return fail(err)
	}
	if p.cleanup != nil {
		defer p.cleanup(e)
	}
	start := time.Now()
	srv, err := startServer(ctx, cmd, o.timeout)
	if err != nil {
		return fail(fmt.Errorf("start: %w", err))
	}
	defer srv.Close()
	r.StartMS = ms(time.Since(start))
	if ir := srv.sess.InitializeResult(); ir != nil {
		r.Protocol = ir.ProtocolVersion
	}

	tools, n, err := srv.toolsList(ctx)
	if err != nil {
		return fail(err)
	}
	r.Tools, r.ToolsBytes, r.ToolsTokens = n, len(tools), tok.Count(string(tools))
	var listed []struct {
		Name string `json:"name"`
	}
	json.Unmarshal(tools, &listed)
	have := map[string]bool{}
	for _, t := range listed {
		have[t.Name] = true
	}
	nav, _ := p.navigate("")
	snap, _ := p.snapshot()
	want := []string{nav, snap}
	for _, kind := range []string{"click", "type", "select"} {
		for _, c := range p.act(step{do: kind, submit: true}, "") {
			want = append(want, c.name)
		}
	}
	for _, want := range want {
		if !have[want] {
			return fail(fmt.Errorf("no tool %q in tools/list (%d tools)", want, n))
		}
	}
	dump(o, p.name, "tools-list.json", string(tools))
	if p.prepare != nil {
		extra, err := p.prepare(ctx, srv)
		if err != nil {
			return fail(fmt.Errorf("prepare: %w", err))
		}
		srv.extra = extra
	}

	markers := site.PageMarkers()
	maps.Copy(markers, site.ScaleMarkers())
	for _, path := range o.pages {
		logf("%s: %s", p.name, path)
		r.Pages = append(r.Pages, measurePage(ctx, o, p, srv, tok, s.URL(path), path, markers[path]))
	}
	for _, t := range actionTasks {
		if o.noMain {
			break
		}
		logf("%s: %s", p.name, t.name)
		r.Actions = append(r.Actions, repeatTask(ctx, o, p, srv, tok, s.URL(t.path), t))
	}
	if apps != nil && !o.noMain {
		for _, t := range appTasks {
			logf("%s: %s task", p.name, t.name)
			r.Tasks = append(r.Tasks, repeatTask(ctx, o, p, srv, tok, apps.URL(t.path), t))
		}
	}
	if len(o.speedPages) > 0 {
		r.Speed = measureSpeed(ctx, o, p, srv, tok, s, br.URL)
	}
	if srv.dead != nil {
		r.Err = oneLine(srv.dead.Error(), 160)
	}
	return r
}

func measurePage(ctx context.Context, o options, p peer, srv *server, tok *tokens.Counter, url, path string, m site.Markers) page {
	pg := page{Path: path, Total: len(m.Visible)}
	var navT, snapT, bothT []time.Duration
	var last reply
	for range o.runs {
		name, args := p.navigate(url)
		nr, err := srv.call(ctx, name, args)
		if err != nil {
			pg.Err = err.Error()
			return pg
		}
		name, args = p.snapshot()
		sr, err := srv.call(ctx, name, args)
		if err != nil {
			pg.Err = err.Error()
			return pg
		}
		navT, snapT, bothT = append(navT, nr.dur), append(snapT, sr.dur), append(bothT, nr.dur+sr.dur)
		pg.NavTokens, last = tok.Count(nr.text), sr
	}
	base := strings.Trim(strings.ReplaceAll(path, "/", "_"), "_")
	dump(o, p.name, base+".txt", last.text)
	dump(o, p.name, base+".result.json", string(last.result))
	pg.Tokens, pg.Bytes, pg.ReplyBytes = tok.Count(last.text), len(last.text), last.raw
	pg.NavMS, pg.SnapMS, pg.NavSnapMS = median(navT), median(snapT), median(bothT)
	full := last.text
	if p.full != nil {
		name, args := p.full()
		fr, err := srv.call(ctx, name, args)
		if err != nil {
			pg.Err = "full snapshot: " + err.Error()
			return pg
		}
		full = fr.text
		dump(o, p.name, base+".full.txt", full)
	}
	pg.FullTokens = tok.Count(full)
	for _, v := range m.Visible {
		if strings.Contains(full, v) {
			pg.FullFound++
		}
	}
	for _, h := range m.Hidden {
		if strings.Contains(full, h) {
			pg.FullLeaks++
		}
	}
	for _, v := range m.Visible {
		if strings.Contains(last.text, v) {
			pg.Found++
		} else {
			pg.Missing = append(pg.Missing, v)
		}
	}
	for _, h := range m.Hidden {
		if strings.Contains(last.text, h) {
			pg.Leaked = append(pg.Leaked, h)
		}
	}
	return pg
}

// repeatTask runs a task -n times on a freshly loaded page; the tokens and
// counts are the last run's, the times medians.
func repeatTask(ctx context.Context, o options, p peer, srv *server, tok *tokens.Counter, url string, t task) taskResult {
	var r taskResult
	var times, steps []time.Duration
	for range o.runs {
		r = runTask(ctx, o, p, srv, tok, url, t)
		if r.Err != "" {
			logf("%s: %s: %s", p.name, t.name, r.Err)
			return r
		}
		times = append(times, time.Duration(r.MS*float64(time.Millisecond)))
		steps = append(steps, time.Duration((r.MS-r.NavMS)*float64(time.Millisecond)))
	}
	r.MS, r.StepsMS = median(times), median(steps)
	return r
}

func median(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return ms(s[len(s)/2])
	}
	return ms((s[len(s)/2-1] + s[len(s)/2]) / 2)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "peers: "+format+"\n", args...)
}

// dump writes one output to the -dump folder, if set.
func dump(o options, server, name, text string) {
	if o.dump == "" {
		return
	}
	dir := filepath.Join(o.dump, server)
	if err := os.MkdirAll(dir, 0o755); err == nil {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
}
