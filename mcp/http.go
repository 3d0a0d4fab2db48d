package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable HTTP transport is served.
const Path = "/mcp"

// Handler serves the streamable HTTP transport at Path. Every request must
// carry "Authorization: Bearer TOKEN" (compared in constant time) and, when
// it has an Origin header, a loopback origin; others get 401 or 403 with a
// one-line reason. The SDK's DNS-rebinding protection (a loopback
// connection must name a loopback Host) stays on.
//
// Each MCP session is its own world, with its own browser (attached with
// --cdp, its own browser context in that browser), started by the first
// tool call that needs it. At Options.MaxSessions, a new session takes the
// place of the idle session used longest ago, which is closed with its
// browser; only when every session has a call in flight does the new one
// get 503. A session idle for Options.IdleTimeout is closed with its
// browser.
func (s *Server) Handler(token string) http.Handler {
	s.clients.isolate()
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv },
		&sdk.StreamableHTTPOptions{Logger: s.log, SessionTimeout: s.opt.IdleTimeout})
	want := sha256.Sum256([]byte(token))
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			deny(w, http.StatusForbidden, fmt.Sprintf("canopy: origin %q is not allowed: only loopback origins may call this server", o))
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		gotSum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !ok || subtle.ConstantTimeCompare(gotSum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="canopy"`)
			deny(w, http.StatusUnauthorized, "canopy: missing or wrong bearer token (send Authorization: Bearer TOKEN; the token is --token, $CANOPY_TOKEN, or the one printed at start)")
			return
		}
		s.serveSession(mcpHandler, w, r)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		deny(w, http.StatusNotFound, "canopy: the MCP endpoint is "+Path)
	})
	return mux
}

// serveSession serves one request of the streamable transport, keeping
// the sessions within Options.MaxSessions (seats): a request of a session
// that gave way gets 404, and a new session at the cap takes the seat of
// the idle one used longest ago, or gets 503 when every session has a call
// in flight.
func (s *Server) serveSession(h http.Handler, w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get(sessionHeader); id != "" {
		leave, ok := s.seats.enter(id, r.Method != http.MethodGet)
		if !ok {
			deny(w, http.StatusNotFound, fmt.Sprintf("session not found: canopy closed it, idle, to make room for a new session at the cap of %d (--max-sessions); initialize a new one", s.opt.MaxSessions))
			return
		}
		defer leave()
		h.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost { // the SDK refuses it: no session to make
		h.ServeHTTP(w, r)
		return
	}
	ow, err := s.seats.open(w, initializes(r))
	if err != nil {
		w.Header().Set("Retry-After", "10")
		deny(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	defer ow.done()
	h.ServeHTTP(ow, r)
}

// sessions counts the MCP sessions open now.
func (s *Server) sessions() int {
	n := 0
	for range s.srv.Sessions() {
		n++
	}
	return n
}

func deny(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

// loopbackOrigin reports whether an Origin header names this machine.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return loopbackHost(u.Hostname())
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ListenAddr turns the --http value into the address to listen on, and
// says whether it is outside loopback. A bare port ("8080", ":8080") binds
// 127.0.0.1; only an explicit host binds elsewhere.
func ListenAddr(flag string) (addr string, public bool, err error) {
	if !strings.Contains(flag, ":") {
		flag = ":" + flag
	}
	host, port, err := net.SplitHostPort(flag)
	if err != nil {
		return "", false, fmt.Errorf("--http %q: want PORT, HOST:PORT or [IPv6]:PORT: %w", flag, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), !loopbackHost(host), nil
}

// NewToken returns a random bearer token.
func NewToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// ServeHTTP listens on ln and serves Handler(token) until ctx ends, then
// shuts down gracefully.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	if token == "" {
		return errors.New("the HTTP transport needs a token")
	}
	hs := &http.Server{Handler: s.Handler(token), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		return nil
	}
}
