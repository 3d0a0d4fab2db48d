//go:build linux

// Command soak runs many mixed actions through one session (opened with
// canopy.Open, as every surface opens one) on the test pages and samples
// what could leak: the process's resident memory, goroutines, open file
// descriptors and the browser's processes, before, every -every actions,
// and after. It prints the samples, the calls, the failures and the worst
// latency, and exits non-zero when a resource grows past its margin.
//
//	go run ./bench/soak [-n 1000] [-every 100]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/internal/sysproc"
)

// round is one pass over the pages: load each, act on it, read it.
var round = []string{
	`navigate "{{site}}/login.html"`,
	`type role:textbox name:Email "a@b.c" clear`,
	`click role:checkbox name:"Remember me"`,
	`snapshot`,
	`navigate "{{site}}/todo.html"`,
	`type role:textbox "milk" submit`,
	`check role:checkbox name:milk`,
	`extract text`,
	`navigate "{{site}}/dashboard.html"`,
	`click role:listitem text:Apollo >> role:button name:Delete`,
	`click role:dialog >> role:button name:Cancel`,
	`find role:button`,
	`navigate "{{site}}/widgets.html"`,
	`select id:region "Asia"`,
	`press id:q Enter`,
	`scroll down 300`,
	`tabs new "{{site}}/cross.html"`,
	`snapshot`,
	`tabs close`,
	`screenshot`,
}

// margins are how much each resource may grow from the sample after the
// first round (warm) to the last before the run counts as leaking.
const (
	rssMargin       = 1.5 // times
	goroutineMargin = 20
	fdMargin        = 20
	processMargin   = 2
)

func main() {
	n := flag.Int("n", 1000, "actions to run")
	every := flag.Int("every", 100, "sample every this many actions")
	flag.Parse()
	if err := run(context.Background(), *n, *every); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

type sample struct {
	actions    int
	rssKB      int
	goroutines int
	fds        int
	procs      int
}

func run(ctx context.Context, n, every int) error {
	s, err := site.Serve(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	sess, err := canopy.Open(ctx, canopy.Config{})
	if err != nil {
		return err
	}
	defer sess.Close()
	var steps []action.Action
	for _, st := range round {
		as, err := action.ParseSteps(strings.ReplaceAll(st, "{{site}}", strings.TrimSuffix(s.URL("/"), "/")))
		if err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
		steps = append(steps, as[0])
	}
	var samples []sample
	take := func(done int) {
		runtime.GC()
		samples = append(samples, sample{actions: done, rssKB: rssKB(), goroutines: runtime.NumGoroutine(), fds: fds(), procs: children(os.Getpid())})
	}
	take(0)
	failures, worst, worstStep := 0, time.Duration(0), ""
	start := time.Now()
	for i := range n {
		a := steps[i%len(steps)]
		t0 := time.Now()
		if _, err := sess.Run(ctx, a); err != nil {
			failures++
			fmt.Fprintf(os.Stderr, "action %d (%s): %v\n", i+1, a, err)
		}
		if d := time.Since(t0); d > worst {
			worst, worstStep = d, a.String()
		}
		if (i+1)%every == 0 || i+1 == len(steps) {
			take(i + 1)
		}
	}
	total := time.Since(start)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "actions\tRSS MB\tgoroutines\tfds\tbrowser procs\t")
	for _, x := range samples {
		fmt.Fprintf(w, "%d\t%.1f\t%d\t%d\t%d\t\n", x.actions, float64(x.rssKB)/1024, x.goroutines, x.fds, x.procs)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("%d actions in %s (%.0f ms each), %d failed; worst %s (%s)\n", n, total.Round(time.Second),
		float64(total.Milliseconds())/float64(n), failures, worst.Round(time.Millisecond), worstStep)
	if failures > 0 {
		return fmt.Errorf("%d of %d actions failed", failures, n)
	}
	return judge(samples)
}

// judge compares the last sample with the one after the first round.
func judge(samples []sample) error {
	if len(samples) < 3 {
		return nil
	}
	warm, last := samples[1], samples[len(samples)-1]
	var grew []string
	if float64(last.rssKB) > rssMargin*float64(warm.rssKB) {
		grew = append(grew, fmt.Sprintf("RSS %d → %d KB", warm.rssKB, last.rssKB))
	}
	if last.goroutines > warm.goroutines+goroutineMargin {
		grew = append(grew, fmt.Sprintf("goroutines %d → %d", warm.goroutines, last.goroutines))
	}
	if last.fds > warm.fds+fdMargin {
		grew = append(grew, fmt.Sprintf("fds %d → %d", warm.fds, last.fds))
	}
	if last.procs > warm.procs+processMargin {
		grew = append(grew, fmt.Sprintf("browser processes %d → %d", warm.procs, last.procs))
	}
	if len(grew) > 0 {
		return fmt.Errorf("grew past its margin: %s", strings.Join(grew, ", "))
	}
	return nil
}

// rssKB is this process's resident memory, from /proc/self/status.
func rssKB() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}

// fds counts this process's open file descriptors.
func fds() int {
	entries, _ := os.ReadDir("/proc/self/fd")
	return len(entries)
}

// children counts the processes descended from pid (the browser's).
func children(pid int) int {
	parent := sysproc.Parents()
	n := 0
	for p := range parent {
		for q := parent[p]; q != 0; q = parent[q] {
			if q == pid {
				n++
				break
			}
		}
	}
	return n
}
