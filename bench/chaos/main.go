//go:build linux

// Command chaos breaks what canopy's MCP server depends on, at random
// points between calls — the page's renderer, the browser, the page
// server, the client's connection — and checks that the next call answers
// correctly every time: the page's tree when the page can be had, a clear
// one-line error when its server is down. It prints the faults, the calls,
// the failures and the worst latency, and exits non-zero on a failure.
//
//	go run ./bench/chaos [-faults 40] [-seed 1]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/internal/sysproc"
	"github.com/canopy-dev/canopy/mcp"
)

func main() {
	faults := flag.Int("faults", 40, "faults to inject")
	seed := flag.Uint64("seed", 1, "random seed (the same seed, the same run)")
	flag.Parse()
	r, err := run(context.Background(), *faults, *seed)
	fmt.Println(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

// result sums a run up.
type result struct {
	faults   map[string]int
	calls    int
	failures []string
	worst    time.Duration
	elapsed  time.Duration
}

func (r result) String() string {
	var kinds []string
	for k, n := range r.faults {
		kinds = append(kinds, fmt.Sprintf("%s ×%d", k, n))
	}
	return fmt.Sprintf("faults: %s; %d calls in %s, %d failed; worst call %s",
		strings.Join(kinds, ", "), r.calls, r.elapsed.Round(time.Second), len(r.failures), r.worst.Round(time.Millisecond))
}

// faultKinds are the things chaos breaks.
var faultKinds = []string{"renderer", "browser", "server", "client"}

func run(ctx context.Context, faults int, seed uint64) (result, error) {
	res := result{faults: map[string]int{}}
	s, err := site.Serve(ctx)
	if err != nil {
		return res, err
	}
	defer s.Close()
	px, err := newProxy(strings.TrimPrefix(strings.TrimSuffix(s.URL("/"), "/"), "http://"))
	if err != nil {
		return res, err
	}
	defer px.stop()
	page := "http://" + px.addr + "/login.html"
	// Sensitive: chrome://crash is how a call kills its own renderer.
	srv, err := mcp.New(mcp.Options{Session: canopy.Config{Allow: action.Sensitive}, CallTimeout: time.Minute})
	if err != nil {
		return res, err
	}
	defer srv.Close()
	cs, err := connect(ctx, srv)
	if err != nil {
		return res, err
	}
	defer func() { cs.Close() }()
	call := func(tool string, args map[string]any) (string, bool, error) {
		start := time.Now()
		defer func() {
			res.calls++
			res.worst = max(res.worst, time.Since(start))
		}()
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		out, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return "", false, err
		}
		var b strings.Builder
		for _, c := range out.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
		return b.String(), out.IsError, nil
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	begin := time.Now()
	for i := range faults {
		if text, isErr, err := call("navigate", map[string]any{"url": page}); err != nil || isErr || !strings.Contains(text, `textbox "Email"`) {
			res.failures = append(res.failures, fmt.Sprintf("fault %d: the page before it: %v %q", i, err, firstLine(text)))
		}
		kind := faultKinds[rng.IntN(len(faultKinds))]
		res.faults[kind]++
		serverDown := false
		switch kind {
		case "renderer":
			call("navigate", map[string]any{"url": "chrome://crash"}) // its answer does not matter
		case "browser":
			killBrowser()
		case "server":
			px.stop()
			serverDown = true
		case "client":
			cs.Close()
			if cs, err = connect(ctx, srv); err != nil {
				return res, err
			}
		}
		// The next call answers correctly.
		text, isErr, err := call("navigate", map[string]any{"url": page})
		switch {
		case err != nil:
			res.failures = append(res.failures, fmt.Sprintf("fault %d (%s): protocol error %v", i, kind, err))
		case serverDown && (!isErr || strings.Count(strings.TrimSpace(text), "\n") > 0 && !strings.Contains(text, "still loading")):
			res.failures = append(res.failures, fmt.Sprintf("fault %d (%s): want a one-line error, got %q", i, kind, firstLine(text)))
		case !serverDown && (isErr || !strings.Contains(text, `textbox "Email"`)):
			res.failures = append(res.failures, fmt.Sprintf("fault %d (%s): %q", i, kind, firstLine(text)))
		}
		if serverDown {
			if err := px.start(); err != nil {
				return res, err
			}
		}
	}
	res.elapsed = time.Since(begin)
	if len(res.failures) > 0 {
		return res, fmt.Errorf("%d failures:\n%s", len(res.failures), strings.Join(res.failures, "\n"))
	}
	return res, nil
}

// connect opens a client session on srv over in-memory transports.
func connect(ctx context.Context, srv *mcp.Server) (*sdk.ClientSession, error) {
	st, ct := sdk.NewInMemoryTransports()
	if _, err := srv.SDK().Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	return sdk.NewClient(&sdk.Implementation{Name: "chaos", Version: "0"}, nil).Connect(ctx, ct, nil)
}

// killBrowser kills the browser processes this process started (the
// direct children), as a crash would.
func killBrowser() {
	self := os.Getpid()
	for pid, parent := range sysproc.Parents() {
		if parent == self {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// proxy forwards a fixed local address to the page server, and can be
// stopped (its listener and every connection closed, as a server that
// died) and started again on the same address.
type proxy struct {
	addr, to string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

func newProxy(to string) (*proxy, error) {
	p := &proxy{addr: "127.0.0.1:0", to: to}
	if err := p.start(); err != nil {
		return nil, err
	}
	p.addr = p.ln.Addr().String()
	return p, nil
}

// start listens on the proxy's address and serves.
func (p *proxy) start() error {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	p.mu.Lock()
	p.ln, p.conns = ln, map[net.Conn]bool{}
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
	return nil
}

// forward copies one connection both ways to the page server.
func (p *proxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.to)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
}

// stop closes the listener and every connection.
func (p *proxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}
