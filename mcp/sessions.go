package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader names the MCP session a streamable HTTP request belongs to.
const sessionHeader = "Mcp-Session-Id"

// seats keeps the HTTP transport's MCP sessions within Options.MaxSessions.
// It is the one place that knows which sessions have a call in flight: a
// request that names a session (POST or DELETE) is in flight while it is
// served; the long-lived GET stream for server-to-client messages is not,
// so a client that holds one open but calls nothing is idle.
//
// At the cap, a new session takes the seat of the idle session whose last
// request ended longest ago: that session is closed as an idle timeout
// closes it (the SDK forgets it, so its next request gets 404 "session not
// found", which tells its client to initialize again; its browser closes).
// A client that restarts without closing its sessions is never locked out.
// Only when every session has a call in flight is the new one turned away.
type seats struct {
	max int
	srv *sdk.Server
	log *slog.Logger

	mu      sync.Mutex
	by      map[string]*seat // by session ID
	opening int              // new sessions let in whose ID is not known yet
	tick    uint64           // counts request ends: orders seats by last use
}

// seat is one MCP session's use of the server.
type seat struct {
	busy  int       // requests being served for it (never its GET stream)
	used  uint64    // tick of its last request's end
	since time.Time // when its last request ended
	gone  bool      // it gave way; its requests get 404 until the SDK forgets it
}

func newSeats(srv *sdk.Server, max int, log *slog.Logger) *seats {
	return &seats{srv: srv, max: max, log: log, by: map[string]*seat{}}
}

// enter marks a request of session id as being served: a call in flight
// unless it is the GET stream (call false). It returns leave, to call
// when the request was served, and false when the session gave way to a
// new one. A session it does not know (an ID the SDK never gave, or one it
// forgot) is left to the SDK, which answers 404.
func (t *seats) enter(id string, call bool) (leave func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.by[id]
	switch {
	case st == nil:
		return func() {}, true
	case st.gone:
		return nil, false
	case !call:
		return func() {}, true
	}
	st.busy++
	return func() { t.leave(st) }, true
}

// leave ends a request of st.
func (t *seats) leave(st *seat) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st.busy--
	t.tick++
	st.used, st.since = t.tick, time.Now()
}

// open serves a request that names no session, which makes one when it is
// an initialize (init). An initialize is let in below the cap at once, and
// at the cap by closing the idle session used longest ago; when every
// session has a call in flight, open returns an error worded for the
// client. Any other such request (a probe such as server/discover) makes a
// session that the SDK closes when the request ends, and takes no seat.
//
// The writer returned serves the request and learns the new session's ID
// from the response (whatever the request was: a session made is always
// counted); call its done when the request was served.
func (t *seats) open(w http.ResponseWriter, init bool) (*openWriter, error) {
	ow := &openWriter{ResponseWriter: w, seats: t, admitted: init}
	if !init {
		return ow, nil
	}
	victim, st, err := t.admit()
	if err != nil {
		return nil, err
	}
	if st != nil {
		t.giveWay(victim, time.Since(st.since))
	}
	return ow, nil
}

// admit takes a seat for a new session, and names the seat it took when
// it had to take one.
func (t *seats) admit() (victim string, taken *seat, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	live := map[string]bool{}
	for ss := range t.srv.Sessions() {
		live[ss.ID()] = true
	}
	n := t.opening
	for id, st := range t.by {
		switch {
		case !live[id] && st.busy == 0:
			delete(t.by, id) // ended: closed, timed out, or it gave way
		case live[id] && !st.gone:
			n++
			if st.busy == 0 && (taken == nil || st.used < taken.used) {
				victim, taken = id, st
			}
		}
	}
	if n >= t.max {
		if taken == nil {
			return "", nil, fmt.Errorf("canopy: all %d sessions are busy with a call in flight, the most this server serves (--max-sessions); retry when a call ends", t.max)
		}
		taken.gone = true
	} else {
		victim, taken = "", nil
	}
	t.opening++
	return victim, taken, nil
}

// giveWay closes the session id, idle for idle, to make room. Closing
// waits for the session's handlers (one still running after its client
// hung up), so it runs on its own: the new session does not wait.
func (t *seats) giveWay(id string, idle time.Duration) {
	t.log.Warn("closed an idle MCP session", "session", id, "idle", idle.Round(time.Millisecond),
		"why", fmt.Sprintf("gave way to a new session at the cap of %d", t.max))
	for ss := range t.srv.Sessions() {
		if ss.ID() == id {
			go ss.Close()
			return
		}
	}
}

// opened records the ID of a new session, while its first request is
// being served; admitted says admit counted it.
func (t *seats) opened(id string, admitted bool) *seat {
	t.mu.Lock()
	defer t.mu.Unlock()
	if admitted {
		t.opening--
	}
	st := &seat{busy: 1, since: time.Now()}
	t.by[id] = st
	return st
}

// abandoned gives back the seat of a new session that did not open (its
// first request was not an initialize, or it failed).
func (t *seats) abandoned() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opening--
}

// busy says how many requests of session id are being served, for tests.
func (t *seats) busy(id string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.by[id]; st != nil {
		return st.busy
	}
	return 0
}

// openWriter serves a new session's first request and learns the
// session's ID from the response header before the client can read it,
// so the session's next request already finds its seat.
type openWriter struct {
	http.ResponseWriter
	seats    *seats
	admitted bool  // admit counted the request as a new session
	seen     bool  // the header was looked at
	st       *seat // the session's seat, once its ID is known
}

func (w *openWriter) learn() {
	if w.seen {
		return
	}
	w.seen = true
	if id := w.Header().Get(sessionHeader); id != "" {
		w.st = w.seats.opened(id, w.admitted)
	}
}

// WriteHeader learns the session's ID, then writes the header.
func (w *openWriter) WriteHeader(code int) {
	w.learn()
	w.ResponseWriter.WriteHeader(code)
}

// Write learns the session's ID, then writes b.
func (w *openWriter) Write(b []byte) (int, error) {
	w.learn()
	return w.ResponseWriter.Write(b)
}

// Flush learns the session's ID, then flushes (the SDK flushes its event
// streams through http.ResponseController).
func (w *openWriter) Flush() {
	w.learn()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *openWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// done ends the first request: the session is idle from now on, or, when
// it did not open, its seat is given back.
func (w *openWriter) done() {
	w.learn()
	switch {
	case w.st != nil:
		w.seats.leave(w.st)
	case w.admitted:
		w.seats.abandoned()
	}
}

// initializes reports whether the body of r holds an initialize request,
// alone or in a batch, and leaves the body to be read again. It errs
// towards yes: a body it cannot read as JSON counts as one (the SDK
// refuses it; at worst an idle session gave way for nothing).
func initializes(r *http.Request) bool {
	if r.Body == nil {
		return false
	}
	// The SDK refuses a body beyond this, which makes no session.
	b, err := io.ReadAll(io.LimitReader(r.Body, sdk.DefaultMaxRequestBodyBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if err != nil {
		return true
	}
	if len(b) > sdk.DefaultMaxRequestBodyBytes {
		return false
	}
	// Any member whose value is "initialize", whatever its key's case: the
	// SDK's decoder is its own, and must not see an initialize that this
	// one missed.
	var msgs []map[string]any
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		if json.Unmarshal(b, &msgs) != nil {
			return true
		}
	} else {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return true
		}
		msgs = []map[string]any{m}
	}
	for _, m := range msgs {
		for _, v := range m {
			if v == "initialize" {
				return true
			}
		}
	}
	return false
}
