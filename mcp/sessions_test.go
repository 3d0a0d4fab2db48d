package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// TestSessionsGiveWay: at --max-sessions 2, clients that never close their
// sessions do not lock the next one out. A new session takes the seat of
// the idle session used longest ago (not the oldest opened), which gets
// 404 "session not found" and is logged; a session with a call in flight
// (a click waiting for the user's yes) keeps its seat even when it was
// used longer ago; when every session has a call in flight the new one
// gets 503 with one line; once the call ends its session can give way, and
// its browser closes.
func TestSessionsGiveWay(t *testing.T) {
	logs := &logBuffer{}
	s := newServer(t, Options{
		MaxSessions: 2, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		// Generous caps: each held call ends when the test answers.
		CallTimeout: 10 * time.Minute,
		Session: canopy.Config{
			Rules:   []policy.Option{policy.Confirm(`name:Delete`)},
			Session: session.Options{ConfirmTimeout: 10 * time.Minute},
		},
	})
	h := newHTTPTest(t, s)

	a, b := h.open(), h.open()
	if got := s.clients.live(); got != 0 {
		t.Errorf("%d sessions with a backend after opening two, want none before a tool call", got)
	}
	if _, err := a.ListTools(context.Background(), nil); err != nil { // A is now used later than B
		t.Fatal(err)
	}
	h.idle(a)
	c := h.open()
	h.gaveWay(b, 2, logs)
	if _, err := b.ListTools(context.Background(), nil); err == nil {
		t.Errorf("B's client can still list tools after B gave way")
	}
	if got := s.clients.live(); got != 0 {
		t.Errorf("%d sessions with a backend, want none: no tool call was made", got)
	}

	// A's click waits for the user's yes: a call in flight. A was used
	// before C was opened, yet C gives way.
	releaseA := h.hold(a)
	d := h.open()
	h.gaveWay(c, 2, logs)
	if strings.Contains(logs.String(), "session="+a.ID()) {
		t.Errorf("A gave way with a call in flight:\n%s", logs)
	}
	releaseD := h.hold(d)

	// Both have a call in flight: the next session is turned away.
	code, body := h.post("", initialize)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "all 2 sessions are busy") ||
		strings.Count(strings.TrimSpace(body), "\n") != 0 {
		t.Errorf("a new session while all are busy: %d %q, want 503 and one line saying all 2 are busy", code, body)
	}

	// A's call ends: A is idle, and gives way to the next session with
	// its browser.
	releaseA()
	h.open()
	h.gaveWay(a, 2, logs)
	waitFor(t, "A's browser to close", func() bool { return s.clients.live() == 1 })
	releaseD()
}

// TestSessionsGiveWayDefault: at the default cap, a client that opens a
// session per task and closes none (as the MCP conformance suite does) is
// served every time; the sessions beyond the cap that gave way are the
// oldest, and none of them started a browser.
func TestSessionsGiveWayDefault(t *testing.T) {
	logs := &logBuffer{}
	s := newServer(t, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	h := newHTTPTest(t, s)
	var all []*asking
	for range DefaultMaxSessions + 3 {
		all = append(all, h.open())
	}
	for _, cs := range all[:3] {
		h.gaveWay(cs, DefaultMaxSessions, logs)
	}
	for i, cs := range all[3:] {
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Errorf("session %d of %d: %v", i+4, len(all), err)
		}
	}
	if n := strings.Count(logs.String(), "gave way"); n != 3 {
		t.Errorf("%d sessions gave way, want 3:\n%s", n, logs)
	}
	if got := s.clients.live(); got != 0 {
		t.Errorf("%d sessions with a backend, want none: no tool call was made", got)
	}
}

// TestSessionsOpenAtOnce: clients that open sessions all at once never
// take the server past its cap: each is served, refused as busy (the
// others are mid-initialize), or gave way before it finished connecting;
// in the end at most two sessions remain.
func TestSessionsOpenAtOnce(t *testing.T) {
	s := newServer(t, Options{MaxSessions: 2})
	h := newHTTPTest(t, s)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		open []*asking
	)
	for range 8 {
		wg.Go(func() {
			cs, err := h.connect()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				open = append(open, cs)
				t.Cleanup(func() { cs.Close() })
			case !strings.Contains(err.Error(), "Service Unavailable") && !errors.Is(err, sdk.ErrSessionMissing):
				t.Errorf("connect: %v, want a session, a 503 or a 404", err)
			}
		})
	}
	wg.Wait()
	waitFor(t, "the sessions that gave way to close", func() bool { return s.sessions() <= 2 })
	served := 0
	for _, cs := range open {
		if _, err := cs.ListTools(context.Background(), nil); err == nil {
			served++
		}
	}
	if served < 1 || served > 2 {
		t.Errorf("%d of %d connected sessions still served, want 1 or 2", served, len(open))
	}
}

// TestSessionsProbe: a request that names no session but is no initialize
// (the Go SDK client's server/discover probe, a ping) takes no seat: at the
// cap, no idle session gives way to it.
func TestSessionsProbe(t *testing.T) {
	logs := &logBuffer{}
	s := newServer(t, Options{MaxSessions: 1, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	h := newHTTPTest(t, s)
	a := h.open()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	} {
		if code, _ := h.post("", body); code == http.StatusServiceUnavailable {
			t.Errorf("%s: 503", body)
		}
	}
	if _, err := a.ListTools(context.Background(), nil); err != nil || strings.Contains(logs.String(), "gave way") {
		t.Errorf("the session after probes at the cap: %v\n%s", err, logs)
	}
}

func TestInitializes(t *testing.T) {
	for body, want := range map[string]bool{
		initialize:             true,
		`[` + initialize + `]`: true,
		`{"jsonrpc":"2.0","id":1,"METHOD":"initialize"}`:         true, // for a decoder that ignores case
		`{"jsonrpc":"2.0","id":1,"method":"\u0069nitialize"}`:    true,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`:               false,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`: false,
		`not json`: true, // the SDK refuses it
		``:         true,
	} {
		r := httptest.NewRequest("POST", Path, strings.NewReader(body))
		if got := initializes(r); got != want {
			t.Errorf("initializes(%q) = %v, want %v", body, got, want)
		}
		if again, _ := io.ReadAll(r.Body); string(again) != body {
			t.Errorf("the body after initializes(%q): %q", body, again)
		}
	}
}

// initialize is an MCP initialize request.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// httpTest is a server under test over real HTTP, with the token "tok".
type httpTest struct {
	t   *testing.T
	s   *Server
	url string
}

// newHTTPTest serves s over HTTP until the test ends, after the client
// sessions the test opened are closed (an open one holds its GET stream).
func newHTTPTest(t *testing.T, s *Server) *httpTest {
	srv := httptest.NewServer(s.Handler("tok"))
	t.Cleanup(srv.Close)
	return &httpTest{t: t, s: s, url: srv.URL + Path}
}

// connect opens an MCP session with the SDK's client. Its user is asked
// through elicitation, and answers no once the test lets them.
func (h *httpTest) connect() (*asking, error) {
	k := &asking{asked: make(chan struct{}, 1), answer: make(chan struct{})}
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, &sdk.ClientOptions{ElicitationHandler: k.elicit})
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer{token: "tok"}},
	}, nil)
	if err != nil {
		return nil, err
	}
	k.ClientSession = cs
	return k, nil
}

// asking is a client session whose user, asked for a yes, answers no once
// answer is closed.
type asking struct {
	*sdk.ClientSession
	asked  chan struct{} // the user was asked
	answer chan struct{} // closed: the user answers
}

func (k *asking) elicit(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	select {
	case k.asked <- struct{}{}:
	default:
	}
	select {
	case <-k.answer:
		return &sdk.ElicitResult{Action: "decline"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// open opens an MCP session that the test leaves open, and returns once
// the server is done with its requests; it is closed when the test ends.
func (h *httpTest) open() *asking {
	h.t.Helper()
	cs, err := h.connect()
	if err != nil {
		h.t.Fatalf("open a session: %v", err)
	}
	h.t.Cleanup(func() { cs.Close() })
	h.idle(cs)
	return cs
}

// idle waits until the server is done with cs's requests: a client has
// its answer before the server's handler returns, so the order of last
// use is only the order of the test's requests once each is done.
func (h *httpTest) idle(cs *asking) {
	h.t.Helper()
	waitFor(h.t, "the server to be done with session "+cs.ID(), func() bool { return h.s.seats.busy(cs.ID()) == 0 })
}

// hold starts a call on cs that waits for its user's yes (a click on a
// button the server's rules name), and returns once the user is asked:
// the call is in flight. release has the user say no, waits for the
// call's refusal, and returns once the server is done with the session.
func (h *httpTest) hold(cs *asking) (release func()) {
	h.t.Helper()
	if text, isErr := call(h.t, cs.ClientSession, "navigate", map[string]any{"url": testSite.URL("/dashboard.html")}); isErr {
		h.t.Fatal(text)
	}
	done := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "click",
			Arguments: map[string]any{"target": `role:listitem text:Apollo >> role:button name:Delete`}})
		if err != nil {
			done <- err.Error()
			return
		}
		done <- fmt.Sprint(res.Content[0].(*sdk.TextContent).Text)
	}()
	release = sync.OnceFunc(func() {
		close(cs.answer)
		if text := <-done; !strings.Contains(text, "declined") {
			h.t.Errorf("the held call of session %s: %s, want it declined", cs.ID(), text)
		}
		h.idle(cs)
	})
	h.t.Cleanup(release)
	select {
	case <-cs.asked:
	case text := <-done:
		done <- text
		h.t.Fatalf("the call to hold ended: %s", text)
	}
	if n := h.s.seats.busy(cs.ID()); n != 1 {
		h.t.Errorf("session %s has %d requests in flight while its user is asked, want 1", cs.ID(), n)
	}
	return release
}

// post sends body with the token (and the session ID, when not empty),
// and returns the status and body of the answer.
func (h *httpTest) post(session, body string) (int, string) {
	h.t.Helper()
	req, err := http.NewRequest("POST", h.url, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	if session != "" {
		req.Header.Set(sessionHeader, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// gaveWay checks that cs gave way to a new session at the cap of max: its
// next request gets 404 "session not found", and the log says why.
func (h *httpTest) gaveWay(cs *asking, max int, logs *logBuffer) {
	h.t.Helper()
	if code, body := h.post(cs.ID(), `{"jsonrpc":"2.0","id":9,"method":"ping"}`); code != http.StatusNotFound || !strings.Contains(body, "session not found") {
		h.t.Errorf("a request of session %s after it gave way: %d %q, want 404 session not found", cs.ID(), code, body)
	}
	for _, want := range []string{"session=" + cs.ID(), fmt.Sprintf("gave way to a new session at the cap of %d", max), "idle="} {
		if !strings.Contains(lineOf(logs.String(), "session="+cs.ID()), want) {
			h.t.Errorf("no log line with %q for session %s:\n%s", want, cs.ID(), logs)
		}
	}
}

// lineOf returns the first line of text that holds s.
func lineOf(text, s string) string {
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// logBuffer collects log lines from many goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
