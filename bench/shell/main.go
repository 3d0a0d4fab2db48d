// Command shell compares canopy's shell with canopy's MCP tools on a set
// of tasks (issue 18): per task, the tool calls, the o200k tokens of the
// replies (what the agent observes) and of the calls' arguments, and the
// wall time, each the median of -n runs.
//
// Each surface has an MCP server of its own, in process, on the SDK's
// in-memory transports: the MCP plan calls canopy's tools (with batch
// wherever a run of steps needs nothing it has not seen yet), the shell
// plan only the shell tool. A plan is what a careful agent would do: it
// names only refs, paths and names it has seen in an earlier reply of the
// same run (the agent checks each call's arguments against the replies
// before sending it), or that the task gives (URLs, the text to type, the
// file name). Each run checks that its task succeeded.
//
// The tasks: read an article's text; fill and submit the login form;
// collect every link of the Sections nav across three pages; and, with
// -desktop, save a download through the browser's Save dialog and open
// the file in mousepad, on a virtual desktop of its own (vdesk) for each
// run and surface.
//
//	go run ./bench/shell [-n 5] [-task login ...] [-desktop] [-nobatch] [-v]
//
// -nobatch adds the MCP tools without batch (one call per step) to the
// table; -v prints each run's calls and replies on stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/mcp"
	"github.com/canopy-dev/canopy/tokens"
	"github.com/canopy-dev/canopy/vdesk"
)

func main() {
	var o options
	flag.IntVar(&o.runs, "n", 5, "runs per task and surface (the median is printed)")
	flag.Func("task", "task to run, repeatable: article, login, nav-links, download (default: all)", func(s string) error {
		o.only = append(o.only, s)
		return nil
	})
	flag.BoolVar(&o.desktop, "desktop", false, "also run the download task, on a virtual desktop (needs Xvfb, dbus-daemon and mousepad)")
	flag.BoolVar(&o.nobatch, "nobatch", false, "also measure the MCP tools without batch: one call per step")
	flag.BoolVar(&o.verbose, "v", false, "print each run's calls and replies on stderr")
	flag.Parse()
	if o.verbose {
		o.log = os.Stderr
	}
	if err := run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	runs    int
	only    []string
	desktop bool
	nobatch bool
	verbose bool
	log     io.Writer // transcripts, or nil
}

// surface is a way of driving canopy: the MCP tools (with batch, or one
// call per step), or the shell tool.
type surface struct {
	name  string
	split bool // batches split into one call per step
	shell bool
}

var (
	viaMCP     = surface{name: "mcp"}
	viaShell   = surface{name: "shell", shell: true}
	viaNoBatch = surface{name: "mcp-nobatch", split: true}
)

// plan returns the surface's plan for t.
func (s surface) plan(t task) func(context.Context, *agent, env) error {
	if s.shell {
		return t.shell
	}
	return t.mcp
}

// row is a task's measured runs on each surface.
type row struct {
	task    task
	skipped string              // why the task did not run, or ""
	runs    map[string][]result // by surface name
}

// run plays every selected task -n times on each surface and prints the
// table.
func run(ctx context.Context, o options, out io.Writer) error {
	if o.runs < 1 {
		return errors.New("-n must be 1 or more")
	}
	for _, name := range o.only {
		if !slices.ContainsFunc(tasks, func(t task) bool { return t.name == name }) {
			return fmt.Errorf("no task %q", name)
		}
	}
	surfaces := []surface{viaMCP, viaShell}
	if o.nobatch {
		surfaces = append(surfaces, viaNoBatch)
	}
	tok, err := tokens.New()
	if err != nil {
		return err
	}
	s, err := site.Serve(ctx)
	if err != nil {
		return err
	}
	defer s.Close()

	var rows []*row
	var page, desk []*row
	for _, t := range tasks {
		if len(o.only) > 0 && !slices.Contains(o.only, t.name) {
			continue
		}
		r := &row{task: t, runs: map[string][]result{}}
		rows = append(rows, r)
		switch {
		case !t.desktop:
			page = append(page, r)
		case !o.desktop:
			r.skipped = "needs the desktop: run with -desktop"
		default:
			if why := desktopMissing(); why != "" {
				r.skipped = why
			} else {
				desk = append(desk, r)
			}
		}
	}
	b := &bench{o: o, tok: tok, site: s, surfaces: surfaces}
	list, err := b.toolsList(ctx)
	if err != nil {
		return err
	}
	if len(page) > 0 {
		if err := b.pages(ctx, page); err != nil {
			return err
		}
	}
	for _, r := range desk {
		if err := b.desktop(ctx, r); err != nil {
			return err
		}
	}
	report(out, rows, surfaces)
	fmt.Fprintln(out, list)
	return nil
}

// toolsList says what the tool descriptions cost, paid once per
// conversation rather than per task: tools/list of every tool, and the
// shell tool's entry alone (o200k tokens of the JSON).
func (b *bench) toolsList(ctx context.Context) (string, error) {
	s, err := serve(ctx, canopy.Config{})
	if err != nil {
		return "", err
	}
	defer s.close()
	res, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		return "", err
	}
	all, err := json.Marshal(res)
	if err != nil {
		return "", err
	}
	var sh []byte
	for _, t := range res.Tools {
		if t.Name == "shell" {
			if sh, err = json.Marshal(&sdk.ListToolsResult{Tools: []*sdk.Tool{t}}); err != nil {
				return "", err
			}
		}
	}
	return fmt.Sprintf("tools/list (once per conversation, not in the table): %d tools %d tokens; the shell tool alone %d tokens",
		len(res.Tools), b.tok.Count(string(all)), b.tok.Count(string(sh))), nil
}

// bench holds what the runs share.
type bench struct {
	o        options
	tok      *tokens.Counter
	site     *site.Site
	surfaces []surface
}

// server is one in-process canopy MCP server with a client connected.
type server struct {
	srv *mcp.Server
	ss  *sdk.ServerSession
	cs  *sdk.ClientSession
}

// serve starts an MCP server with cfg's session and connects a client
// to it on in-memory transports.
func serve(ctx context.Context, cfg canopy.Config) (*server, error) {
	cfg.Session.Surface = "bench"
	srv, err := mcp.New(mcp.Options{Session: cfg})
	if err != nil {
		return nil, err
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		srv.Close()
		return nil, err
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		srv.Close()
		return nil, err
	}
	return &server{srv: srv, ss: ss, cs: cs}, nil
}

// close stops the server's session (and its browser) first: closing the
// MCP session first would have the server close it in the background.
func (s *server) close() {
	s.srv.Close()
	s.cs.Close()
	s.ss.Close()
}

// warm starts the server's browser (and desktop session) with a call
// that is not measured, so that no run pays for the start.
func (b *bench) warm(ctx context.Context, s *server) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "navigate", Arguments: map[string]any{"url": b.site.URL("/")}})
	if err == nil && res.IsError {
		err = errors.New("the warm-up navigate failed")
	}
	return err
}

// pages runs the tasks of the browser alone: one headless server per
// surface, started once; runs alternate between the surfaces.
func (b *bench) pages(ctx context.Context, rows []*row) error {
	servers := map[string]*server{}
	for _, sf := range b.surfaces {
		s, err := serve(ctx, canopy.Config{})
		if err != nil {
			return err
		}
		defer s.close()
		if err := b.warm(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", sf.name, err)
		}
		servers[sf.name] = s
	}
	e := env{site: b.site}
	for i := range b.o.runs {
		for _, r := range rows {
			for j := range b.surfaces {
				// Alternate which surface goes first, run by run.
				sf := b.surfaces[(i+j)%len(b.surfaces)]
				res, err := b.play(ctx, servers[sf.name], sf, r.task, e)
				if err != nil {
					return fmt.Errorf("%s on %s, run %d: %w", r.task.name, sf.name, i+1, err)
				}
				r.runs[sf.name] = append(r.runs[sf.name], res)
			}
		}
	}
	return nil
}

// play runs t's plan for sf on s once and checks that the task succeeded.
func (b *bench) play(ctx context.Context, s *server, sf surface, t task, e env) (result, error) {
	a := &agent{cs: s.cs, tok: b.tok, given: t.given(e), split: sf.split}
	if b.o.log != nil {
		a.log = b.o.log
		fmt.Fprintf(a.log, "=== %s on %s\n", t.name, sf.name)
	}
	if err := sf.plan(t)(ctx, a, e); err != nil {
		return result{}, err
	}
	if err := t.done(a, e); err != nil {
		return result{}, fmt.Errorf("the task did not succeed: %w", err)
	}
	return a.res, nil
}

// desktopPrograms are the programs the download task needs besides the
// browser.
var desktopPrograms = []string{"Xvfb", "dbus-daemon", editor}

// desktopMissing says what the machine lacks for the download task, or
// "".
func desktopMissing() string {
	var missing []string
	for _, p := range desktopPrograms {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return "skipped: " + strings.Join(missing, ", ") + " not found"
	}
	return ""
}

// desktop runs a desktop task: each run on each surface on a virtual
// desktop of its own, with a server (and browser) of its own and a fresh
// downloads folder, so that no run sees another's windows or files.
func (b *bench) desktop(ctx context.Context, r *row) error {
	for i := range b.o.runs {
		for j := range b.surfaces {
			sf := b.surfaces[(i+j)%len(b.surfaces)]
			res, err := b.desktopRun(ctx, sf, r.task)
			if errors.Is(err, vdesk.ErrEnvironment) {
				r.skipped = "skipped: " + err.Error()
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s on %s, run %d: %w", r.task.name, sf.name, i+1, err)
			}
			r.runs[sf.name] = append(r.runs[sf.name], res)
		}
	}
	return nil
}

// desktopUpTimeout caps bringing a virtual desktop up or down.
const desktopUpTimeout = 30 * time.Second

func (b *bench) desktopRun(ctx context.Context, sf surface, t task) (result, error) {
	upCtx, cancel := context.WithTimeout(ctx, desktopUpTimeout)
	d, err := vdesk.Up(upCtx, vdesk.Options{})
	cancel()
	if err != nil {
		return result{}, err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), desktopUpTimeout)
		defer cancel()
		d.Down(ctx)
	}()
	restore := d.Apply()
	defer restore()
	dir, err := os.MkdirTemp("", "canopy-bench-shell-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	s, err := serve(ctx, canopy.Config{Desktop: true, Browser: browser.Options{AskDownloads: true, DownloadDir: dir}})
	if err != nil {
		return result{}, err
	}
	defer s.close()
	if err := b.warm(ctx, s); err != nil {
		return result{}, err
	}
	return b.play(ctx, s, sf, t, env{site: b.site, downloads: dir})
}

// report prints the table: per task the medians of each surface, the
// shell's ratios to the MCP tools, and the totals of the medians.
func report(out io.Writer, rows []*row, surfaces []surface) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "task\tMCP calls\tshell calls\tratio\tMCP tok\tshell tok\tratio\tMCP arg tok\tshell arg tok\tMCP ms\tshell ms\t"
	nb := len(surfaces) > 2
	if nb {
		head += "no-batch calls\tno-batch tok\tno-batch ms\t"
	}
	fmt.Fprintln(w, head)
	var tot [3]median
	var notes []string
	for _, r := range rows {
		if r.skipped != "" {
			notes = append(notes, r.task.name+": "+r.skipped)
			continue
		}
		var m [3]median
		for i, sf := range surfaces {
			m[i] = medians(r.runs[sf.name])
			tot[i].add(m[i])
		}
		line := fmt.Sprintf("%s\t%d\t%d\t%s\t%d\t%d\t%s\t%d\t%d\t%.0f\t%.0f\t", r.task.name,
			m[0].calls, m[1].calls, ratio(m[1].calls, m[0].calls), m[0].obsTok, m[1].obsTok, ratio(m[1].obsTok, m[0].obsTok),
			m[0].argTok, m[1].argTok, m[0].ms, m[1].ms)
		if nb {
			line += fmt.Sprintf("%d\t%d\t%.0f\t", m[2].calls, m[2].obsTok, m[2].ms)
		}
		fmt.Fprintln(w, line)
	}
	line := fmt.Sprintf("total\t%d\t%d\t%s\t%d\t%d\t%s\t%d\t%d\t%.0f\t%.0f\t",
		tot[0].calls, tot[1].calls, ratio(tot[1].calls, tot[0].calls), tot[0].obsTok, tot[1].obsTok, ratio(tot[1].obsTok, tot[0].obsTok),
		tot[0].argTok, tot[1].argTok, tot[0].ms, tot[1].ms)
	if nb {
		line += fmt.Sprintf("%d\t%d\t%.0f\t", tot[2].calls, tot[2].obsTok, tot[2].ms)
	}
	fmt.Fprintln(w, line)
	w.Flush()
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
}

// median is the medians of a task's runs on one surface.
type median struct {
	calls, obsTok, argTok int
	ms                    float64
}

func (m *median) add(x median) {
	m.calls += x.calls
	m.obsTok += x.obsTok
	m.argTok += x.argTok
	m.ms += x.ms
}

func medians(rs []result) median {
	pick := func(f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		if len(v) == 0 {
			return 0
		}
		return v[len(v)/2]
	}
	return median{
		calls:  int(pick(func(r result) float64 { return float64(r.calls) })),
		obsTok: int(pick(func(r result) float64 { return float64(r.obsTok) })),
		argTok: int(pick(func(r result) float64 { return float64(r.argTok) })),
		ms:     pick(func(r result) float64 { return float64(r.elapsed.Microseconds()) / 1000 }),
	}
}

// ratio is a/b with two decimals.
func ratio(a, b int) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
