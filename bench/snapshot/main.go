// Command snapshot benchmarks canopy's perception on the test pages: per
// page, the nodes Chromium returned and canopy kept, bytes and o200k tokens
// of the full and the default (budgeted) snapshot, and milliseconds of the
// raw CDP calls against the whole snapshot, text included (median of -n
// runs).
//
//	go run ./bench/snapshot [-n 5] [-page /table.html ...]
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

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/tokens"
	"github.com/canopy-dev/canopy/tree"
)

type pageList []string

func (p *pageList) String() string     { return strings.Join(*p, ",") }
func (p *pageList) Set(v string) error { *p = append(*p, v); return nil }

func main() {
	runs := flag.Int("n", 5, "runs per page (the median is printed)")
	var pages pageList
	flag.Var(&pages, "page", "page to measure, repeatable (default: all benchmark pages)")
	flag.Parse()
	if len(pages) == 0 {
		pages = pageList{"/login.html", "/frames.html", "/cross.html", "/shadow.html", "/table.html", "/huge.html"}
		if site.HasPyDoc() {
			pages = append(pages, site.PyDocOSPath)
		}
	}
	if err := run(context.Background(), pages, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, pages []string, runs int) error {
	s, err := site.Serve(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	b, err := browser.New(ctx, browser.Options{})
	if err != nil {
		return err
	}
	defer b.Close()
	tok, err := tokens.New()
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "page\tAX nodes\tkept\tfull bytes\tfull tok\tdefault bytes\tdefault tok\tCDP ms\tsnapshot ms\twall/CDP\t")
	for _, p := range pages {
		if _, err := b.Navigate(ctx, s.URL(p), 0); err != nil {
			return err
		}
		var cdpT, wallT []time.Duration
		var snap *tree.Snapshot
		var st browser.Stats
		var def string
		for range runs {
			start := time.Now()
			snap, st, err = b.Snapshot(ctx, browser.SnapshotOptions{})
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			def = tree.Format(snap, tree.Options{})
			cdpT = append(cdpT, st.CDPTime)
			wallT = append(wallT, time.Since(start)) // read, clean, refs and text
		}
		fullText := def
		if p != "/huge.html" { // a full read of the huge page takes a minute
			fs, _, err := b.Snapshot(ctx, browser.SnapshotOptions{Full: true})
			if err != nil {
				return err
			}
			fullText = tree.Format(fs, tree.Options{Full: true})
		}
		c, wl := median(cdpT), median(wallT)
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.1f\t%.2f\t\n", p, st.AXNodes, st.Nodes,
			len(fullText), tok.Count(fullText), len(def), tok.Count(def), ms(c), ms(wl), float64(wl)/float64(c))
	}
	return w.Flush()
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
