//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawTransport wraps a transport and keeps the raw result of the last
// JSON-RPC response read, so a reply's size is measured as it was sent
// (text, structuredContent, _meta and all) rather than as re-encoded.
type rawTransport struct {
	inner mcp.Transport
	mu    sync.Mutex
	last  json.RawMessage
}

func (t *rawTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rawConn{Connection: c, t: t}, nil
}

// lastResult returns the raw result of the last response read.
func (t *rawTransport) lastResult() json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

type rawConn struct {
	mcp.Connection
	t *rawTransport
}

func (c *rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); ok && err == nil {
		c.t.mu.Lock()
		c.t.last = append(json.RawMessage(nil), r.Result...)
		c.t.mu.Unlock()
	}
	return m, err
}

// server is one MCP server process and the client session to it. The
// process leads its own process group, so Close ends its helpers too.
type server struct {
	cmd     *exec.Cmd
	pipes   *procPipes
	tr      *rawTransport
	sess    *mcp.ClientSession
	stderr  *tail
	timeout time.Duration  // per call
	extra   map[string]any // arguments added to every call (a peer's page id)
	dead    error          // set once a call timed out or the connection broke
}

// startServer starts cmd and initializes an MCP session with it.
func startServer(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) (*server, error) {
	s := &server{cmd: cmd, stderr: &tail{max: 4096}, timeout: timeout}
	cmd.Stderr = s.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipes, err := startPipes(cmd)
	if err != nil {
		return nil, err
	}
	s.pipes = pipes
	s.tr = &rawTransport{inner: &mcp.IOTransport{Reader: pipes, Writer: pipes, MaxLineLength: maxReply}}
	client := mcp.NewClient(&mcp.Implementation{Name: "canopy-bench-peers", Version: "1"}, nil)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		sess *mcp.ClientSession
		err  error
	}
	done := make(chan result, 1)
	go func() {
		sess, err := client.Connect(cctx, s.tr, nil)
		done <- result{sess, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-cctx.Done():
		r.err = fmt.Errorf("initialize: no answer in %s", timeout)
	}
	if r.err != nil {
		s.Close()
		if why := s.stderr.line(); why != "" {
			return nil, fmt.Errorf("%v; stderr: %s", oneLine(r.err.Error(), 100), why)
		}
		return nil, r.err
	}
	s.sess = r.sess
	return s, nil
}

// reply is one tool call's answer.
type reply struct {
	text    string        // the text content items, joined with newlines
	raw     int           // bytes of the JSON-RPC result as sent
	result  []byte        // that result
	dur     time.Duration // round trip
	isError bool
}

// call calls a tool with the per-call timeout. A timeout or a broken
// connection marks the server dead; later calls fail at once.
func (s *server) call(ctx context.Context, name string, args map[string]any) (reply, error) {
	if s.dead != nil {
		return reply{}, s.dead
	}
	if len(s.extra) > 0 {
		args = maps.Clone(args)
		maps.Copy(args, s.extra)
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	start := time.Now()
	res, err := s.sess.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
	d := time.Since(start)
	if err != nil {
		if cctx.Err() != nil {
			s.dead = fmt.Errorf("%w: %s did not answer in %s", errHung, name, s.timeout)
			return reply{}, s.dead
		}
		if errors.Is(err, mcp.ErrConnectionClosed) {
			s.dead = fmt.Errorf("connection closed during %s; stderr: %s", name, s.stderr.line())
			return reply{}, s.dead
		}
		return reply{}, fmt.Errorf("%s: %s", name, oneLine(err.Error(), 120))
	}
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	raw := s.tr.lastResult()
	r := reply{text: strings.Join(parts, "\n"), raw: len(raw), result: raw, dur: d, isError: res.IsError}
	if r.isError {
		return r, fmt.Errorf("%s: tool error: %s", name, oneLine(r.text, 120))
	}
	return r, nil
}

// toolsList lists every tool, following pagination, and returns the raw
// JSON array of the tools as the server sent them.
func (s *server) toolsList(ctx context.Context) (json.RawMessage, int, error) {
	var all [][]byte
	cursor := ""
	for range 100 {
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		res, err := s.sess.ListTools(cctx, &mcp.ListToolsParams{Cursor: cursor})
		cancel()
		if err != nil {
			return nil, 0, fmt.Errorf("tools/list: %s", oneLine(err.Error(), 120))
		}
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(s.tr.lastResult(), &page); err != nil {
			return nil, 0, fmt.Errorf("tools/list: %v", err)
		}
		for _, t := range page.Tools {
			all = append(all, t)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	// Joined by hand: json.Marshal would re-compact the elements.
	arr := append(json.RawMessage("["), bytes.Join(all, []byte(","))...)
	return append(arr, ']'), len(all), nil
}

// Close ends the session (the SDK closes stdin, then signals the process
// and reaps it), then kills what is left of the server's process group.
func (s *server) Close() {
	if s.sess != nil {
		done := make(chan struct{})
		go func() { s.sess.Close(); close(done) }()
		t := time.NewTimer(10 * time.Second)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
	}
	if s.cmd.Process != nil {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	s.pipes.Close() // reaps the process, if the session did not
}

// maxReply is the largest JSON-RPC message the bench reads from a server.
// The SDK's default, 16 MB, is less than agent-browser's full snapshot of
// the 10,000-row table (its replies repeat the text as escaped JSON).
const maxReply = 512 << 20

// procPipes is a server process's stdin and stdout as one stream, what the
// SDK's CommandTransport does but with room for replies up to maxReply.
type procPipes struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	stdin  io.WriteCloser
	once   sync.Once
}

// startPipes starts cmd with its stdin and stdout connected to the result.
func startPipes(cmd *exec.Cmd) (*procPipes, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdout: %w", err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return &procPipes{cmd: cmd, stdout: out, stdin: in}, nil
}

func (p *procPipes) Read(b []byte) (int, error)  { return p.stdout.Read(b) }
func (p *procPipes) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the server as the MCP spec asks of a stdio client: it closes
// stdin and gives the process 2 s to exit; then it ends the process group
// (killGroup: SIGTERM, 2 s, SIGKILL) and reaps the process. Later calls do
// nothing.
func (p *procPipes) Close() error {
	p.once.Do(func() {
		p.stdin.Close()
		exited := make(chan struct{})
		go func() { p.cmd.Wait(); close(exited) }()
		t := time.NewTimer(2 * time.Second)
		defer t.Stop()
		select {
		case <-exited:
		case <-t.C:
		}
		killGroup(p.cmd, exited, 2*time.Second)
	})
	return nil
}
