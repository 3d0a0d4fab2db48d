// Package site serves canopy's test pages over HTTP on loopback.
//
// The pages exercise the parts of Chromium's accessibility tree that canopy
// has to get right: forms, same-origin and cross-site (out-of-process)
// frames, shadow DOM, dialogs, hidden content, clickable generic elements,
// large tables and very large documents, and a page that never finishes
// loading. They are used by the integration tests and by `canopy demo`.
//
// Every page is served on two loopback sites, 127.0.0.1 (the primary) and
// 127.0.0.2. Chromium treats the two addresses as different sites, so a
// frame loaded from the second one is isolated into its own renderer
// process. Static pages live in pages/*.html and are embedded into the
// binary; the placeholders {{self}} and {{cross}} in them are replaced with
// the primary and cross-site origins (for example http://127.0.0.2:41234)
// when the server starts. The same substitution is used on both sites, so
// {{self}} always means 127.0.0.1 and {{cross}} always means 127.0.0.2.
//
// PageMarkers lists, for each page, strings that a full accessibility
// snapshot of it must contain and strings it must not contain.
package site

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Loopback addresses of the two sites. 127.0.0.2 is a loopback address on
// Linux without any configuration.
const (
	primaryHost = "127.0.0.1"
	crossHost   = "127.0.0.2"
)

// Site serves the pages on two loopback sites: 127.0.0.1 (the primary) and
// 127.0.0.2 (a second site, so Chromium isolates frames from it into their
// own process). Both sites serve the same handler. A Site is safe for
// concurrent use.
type Site struct {
	primary string // origin of the primary site, "http://127.0.0.1:PORT"
	cross   string // origin of the cross site, "http://127.0.0.2:PORT"
	handler http.Handler
	servers []*http.Server
	hits    hits // requests served, for Hits

	// cancel cancels the base context of every request, so handlers that
	// block on their request context (such as /hang) return on Close.
	cancel context.CancelFunc

	serveErrs chan error    // one result per server goroutine
	done      chan struct{} // closed when Close has finished
	closeOnce sync.Once
	closeErr  error
}

// Serve starts serving the pages on 127.0.0.1 and 127.0.0.2, each on a free
// port chosen by the kernel. It returns once both listeners are open. The
// servers stop when ctx ends or Close is called, whichever comes first;
// callers should still call Close to release the ports deterministically.
func Serve(ctx context.Context) (*Site, error) {
	var lc net.ListenConfig
	primaryLn, err := lc.Listen(ctx, "tcp", net.JoinHostPort(primaryHost, "0"))
	if err != nil {
		return nil, fmt.Errorf("site: listen on %s: %w", primaryHost, err)
	}
	crossLn, err := lc.Listen(ctx, "tcp", net.JoinHostPort(crossHost, "0"))
	if err != nil {
		primaryLn.Close()
		return nil, fmt.Errorf("site: listen on %s: %w", crossHost, err)
	}

	primary := "http://" + primaryLn.Addr().String()
	cross := "http://" + crossLn.Addr().String()
	handler, err := newHandler(primary, cross)
	if err != nil {
		primaryLn.Close()
		crossLn.Close()
		return nil, err
	}

	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Site{
		primary:   primary,
		cross:     cross,
		handler:   handler,
		cancel:    cancel,
		serveErrs: make(chan error, 2),
		done:      make(chan struct{}),
	}
	for _, ln := range []net.Listener{primaryLn, crossLn} {
		srv := &http.Server{
			Handler:           s.hits.count(handler),
			ReadHeaderTimeout: 30 * time.Second,
			BaseContext:       func(net.Listener) context.Context { return base },
		}
		s.servers = append(s.servers, srv)
		go func() { s.serveErrs <- srv.Serve(ln) }()
	}
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

// URL returns the address of path on the primary site, for example
// "http://127.0.0.1:34567/login.html". path should begin with "/".
func (s *Site) URL(path string) string { return s.primary + path }

// CrossURL returns the address of path on the cross site, for example
// "http://127.0.0.2:45678/cross-child.html". path should begin with "/".
func (s *Site) CrossURL(path string) string { return s.cross + path }

// Handler returns the HTTP handler that serves the pages. It is the handler
// both sites use and can be mounted elsewhere, for example in an
// httptest.Server; the {{self}} and {{cross}} placeholders still refer to
// this Site's origins.
func (s *Site) Handler() http.Handler { return s.handler }

// Close stops both servers, closes their connections and cancels the
// context of every in-flight request, then waits for the servers to stop
// accepting. It is safe to call more than once; later calls return the
// result of the first.
func (s *Site) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		var errs []error
		for _, srv := range s.servers {
			if err := srv.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		for range s.servers {
			if err := <-s.serveErrs; err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs = append(errs, err)
			}
		}
		s.closeErr = errors.Join(errs...)
		close(s.done)
	})
	return s.closeErr
}
