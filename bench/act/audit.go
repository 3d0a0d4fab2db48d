package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// runAudit measures what the audit log costs: each scenario's action runs
// on a session without a log and on one writing to a file, alternately
// run by run, and the medians of the total times are compared.
func runAudit(ctx context.Context, only []string, runs int) error {
	s, b, stop, err := start(ctx)
	if err != nil {
		return err
	}
	defer stop()
	f, err := os.CreateTemp("", "canopy-bench-audit-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	off := session.New(b.Source(), policy.New(action.Act), session.Options{})
	on := session.New(b.Source(), policy.New(action.Act), session.Options{Audit: audit.New(f), Surface: "bench"})
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "scenario\toff ms\taudit ms\tdelta ms\tdelta %\t")
	for _, sc := range scenarios {
		if len(only) > 0 && !slices.Contains(only, sc.name) {
			continue
		}
		var t [2][]time.Duration
		for i := range 2 * runs {
			sess := off
			if i%2 == 1 {
				sess = on
			}
			smp, err := measure(ctx, b, sess, s.URL(sc.page), sc)
			if err != nil {
				return fmt.Errorf("%s: %w", sc.name, err)
			}
			t[i%2] = append(t[i%2], smp.total)
		}
		a, z := median(t[0]), median(t[1])
		fmt.Fprintf(w, "%s\t%.1f\t%.1f\t%+.1f\t%+.1f\t\n", sc.name, ms(a), ms(z), ms(z-a), 100*float64(z-a)/float64(a))
	}
	return w.Flush()
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
