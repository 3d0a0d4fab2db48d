package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/policy"
)

// runGate measures what the rules cost at the gate: each scenario's
// action runs on a session without rules and on one with an audit log
// (written to a file) and a domain allowlist, alternately run by run, and
// the medians of the total times are compared.
func runGate(ctx context.Context, only []string, runs int) error {
	s, err := site.Serve(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	dir, err := os.MkdirTemp("", "canopy-bench-gate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	off, err := open(ctx, canopy.Config{})
	if err != nil {
		return err
	}
	defer off.Close()
	on, err := open(ctx, gated(filepath.Join(dir, "audit.jsonl")))
	if err != nil {
		return err
	}
	defer on.Close()
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "scenario\toff ms\trules ms\tdelta ms\tdelta %\t")
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
			smp, err := measure(ctx, sess, s.URL(sc.page), sc)
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

// gated is a session with the rules on: an audit log, and a domain
// allowlist the browser checks every document request against.
func gated(auditFile string) canopy.Config {
	return canopy.Config{AuditFile: auditFile, Rules: []policy.Option{policy.Domains("127.0.0.1")}}
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
