package site

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"sync"
	"time"
)

// Origin is a site of its own on 127.0.0.1, on a port apart from the
// primary site's: the same site as the primary one for the browser (a
// site is a scheme and a registrable host, ports aside), yet an origin a
// --domains pattern with a port can refuse. The browser prerenders
// same-site pages only, so the tests of --domains against prerendering
// need one. It records every request it serves; each page it serves runs
// a script that requests /ran?PATH, so a test can tell that a page of it
// ran, not only that it was fetched.
type Origin struct {
	srv *http.Server

	mu      sync.Mutex
	seen    []string      // "PATH" or "PATH?QUERY", in order
	changed chan struct{} // closed and replaced at each request
}

// ServeOrigin starts an Origin; Close stops it.
func ServeOrigin(ctx context.Context) (*Origin, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(primaryHost, "0"))
	if err != nil {
		return nil, fmt.Errorf("site: listen on %s: %w", primaryHost, err)
	}
	o := &Origin{changed: make(chan struct{})}
	o.srv = &http.Server{Handler: http.HandlerFunc(o.serve), ReadHeaderTimeout: 30 * time.Second}
	go o.srv.Serve(ln)
	o.srv.Addr = ln.Addr().String()
	return o, nil
}

// URL is path on the origin: "http://127.0.0.1:PORT/x".
func (o *Origin) URL(path string) string { return "http://" + o.srv.Addr + path }

// Close stops the server.
func (o *Origin) Close() error { return o.srv.Close() }

// serve records the request and answers with a page whose script requests
// /ran?PATH; it opts in to being prerendered from another origin of its
// site (Supports-Loading-Mode).
func (o *Origin) serve(w http.ResponseWriter, r *http.Request) {
	got := r.URL.Path
	if r.URL.RawQuery != "" {
		got += "?" + r.URL.RawQuery
	}
	o.mu.Lock()
	o.seen = append(o.seen, got)
	close(o.changed)
	o.changed = make(chan struct{})
	o.mu.Unlock()
	w.Header().Set("Supports-Loading-Mode", "credentialed-prerender")
	w.Header().Set("Content-Type", htmlType)
	p := html.EscapeString(r.URL.Path)
	fmt.Fprintf(w, "<!doctype html><title>Origin %s</title><h1>Origin %s</h1><script>fetch('/ran?' + location.pathname)</script>\n", p, p)
}

// Seen lists the requests served so far, in order: each "PATH" or
// "PATH?QUERY".
func (o *Origin) Seen() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string{}, o.seen...)
}

// Wait waits until the origin has served got ("PATH" or "PATH?QUERY"),
// until ctx ends.
func (o *Origin) Wait(ctx context.Context, got string) error {
	for {
		o.mu.Lock()
		ch := o.changed
		for _, s := range o.seen {
			if s == got {
				o.mu.Unlock()
				return nil
			}
		}
		o.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("the origin never served %s (it served %q): %w", got, o.Seen(), ctx.Err())
		}
	}
}
