// Command act benchmarks canopy's actions on the test pages: per scenario,
// the reply's o200k tokens and bytes, and the milliseconds of reading and
// resolving, acting, settling and diffing (median of -n runs, each on a
// freshly loaded page).
//
//	go run ./bench/act [-n 5] [-scenario open-modal ...]
//	go run ./bench/act -gate [-n 9]    # the cost of the rules (audit log, allowlist): total ms off / on, interleaved
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/tokens"
)

// scenario is one measured action: setup steps run first, unmeasured.
type scenario struct {
	name, page string
	setup      string
	step       string
	batch      bool // run step's steps as one batch
}

var scenarios = []scenario{
	{name: "click-checkbox", page: "/login.html", step: `click role:checkbox name:"Remember me"`},
	{name: "type-email", page: "/login.html", step: `type role:textbox name:Email "a@b.c"`},
	{name: "open-modal", page: "/dashboard.html", step: `click role:listitem text:Apollo >> role:button name:Delete`},
	{name: "confirm-modal", page: "/dashboard.html", setup: `click role:listitem text:Apollo >> role:button name:Delete`, step: `click role:dialog >> role:button name:Delete`},
	{name: "add-todo", page: "/todo.html", setup: `type role:textbox "milk" submit`, step: `type role:textbox "bread" submit`},
	{name: "no-op", page: "/overlay.html", setup: `click role:button name:"Accept cookies"; click role:button name:"Buy now"`, step: `click role:button name:"Buy now"`},
	{name: "navigate-link", page: "/app-login.html", setup: `type role:textbox name:Email "a@b.c"; type role:textbox name:Password "secret"`, step: `click role:button name:"Sign in"`},
	{name: "grid-edit-row", page: "/grid.html", step: `click role:button name:"Edit User 0042"; type role:textbox name:Name "Alice" clear; click role:button name:Save`, batch: true},
	{name: "grid-save-row", page: "/grid.html", setup: `click role:button name:"Edit User 0042"; type role:textbox name:Name "Alice" clear`, step: `click role:button name:Save`},
}

func main() {
	runs := flag.Int("n", 5, "runs per scenario (the median is printed)")
	var only []string
	flag.Func("scenario", "scenario to run, repeatable (default: all)", func(s string) error { only = append(only, s); return nil })
	withGate := flag.Bool("gate", false, "compare each action's total time without and with the rules on: an audit log and a domain allowlist (runs interleaved)")
	flag.Parse()
	do := run
	if *withGate {
		do = runGate
	}
	if err := do(context.Background(), only, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type sample struct {
	read, act, settle, diff, total time.Duration
	text                           string
}

// open starts a session as cfg says, through the one constructor every
// surface uses.
func open(ctx context.Context, cfg canopy.Config) (*canopy.Session, error) {
	cfg.Session.Surface = "bench"
	return canopy.Open(ctx, cfg)
}

func run(ctx context.Context, only []string, runs int) error {
	s, err := site.Serve(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	sess, err := open(ctx, canopy.Config{})
	if err != nil {
		return err
	}
	defer sess.Close()
	tok, err := tokens.New()
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "scenario\treply tok\treply bytes\tread ms\tact ms\tsettle ms\tdiff ms\ttotal ms\t")
	for _, sc := range scenarios {
		if len(only) > 0 && !slices.Contains(only, sc.name) {
			continue
		}
		var samples []sample
		for range runs {
			smp, err := measure(ctx, sess, s.URL(sc.page), sc)
			if err != nil {
				return fmt.Errorf("%s: %w", sc.name, err)
			}
			samples = append(samples, smp)
		}
		m := samples[len(samples)/2]
		pick := func(f func(sample) time.Duration) float64 {
			d := make([]time.Duration, len(samples))
			for i, x := range samples {
				d[i] = f(x)
			}
			slices.Sort(d)
			return float64(d[len(d)/2].Microseconds()) / 1000
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", sc.name, tok.Count(m.text), len(m.text),
			pick(func(x sample) time.Duration { return x.read }), pick(func(x sample) time.Duration { return x.act }),
			pick(func(x sample) time.Duration { return x.settle }), pick(func(x sample) time.Duration { return x.diff }),
			pick(func(x sample) time.Duration { return x.total }))
		if os.Getenv("BENCH_SHOW") != "" {
			fmt.Fprintf(os.Stderr, "--- %s\n%s", sc.name, m.text)
		}
	}
	return w.Flush()
}

// measure loads the page, runs the setup, then times the step.
func measure(ctx context.Context, sess *canopy.Session, url string, sc scenario) (sample, error) {
	if _, err := sess.Run(ctx, action.Action{Kind: action.Navigate, URL: url}); err != nil {
		return sample{}, err
	}
	if sc.setup != "" {
		steps, err := action.ParseSteps(sc.setup)
		if err != nil {
			return sample{}, err
		}
		for _, st := range steps {
			if _, err := sess.Run(ctx, st); err != nil {
				return sample{}, fmt.Errorf("setup %s: %w", st, err)
			}
		}
	}
	steps, err := action.ParseSteps(sc.step)
	if err != nil {
		return sample{}, err
	}
	a := steps[0]
	if sc.batch {
		a = action.Action{Kind: action.Batch, Steps: steps}
	}
	start := time.Now()
	r, err := sess.Run(ctx, a)
	if err != nil {
		return sample{}, err
	}
	total := time.Since(start)
	return sample{read: r.Timing.Read, act: r.Timing.Act, settle: r.Timing.Settle, diff: r.Timing.Diff, total: total,
		text: strings.TrimRight(r.Text, "\n") + "\n"}, nil
}
