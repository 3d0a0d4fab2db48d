package site

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// serveLanding writes /landing/NAME (GET or POST): a page headed
// "Landed NAME", where the --domains tests send the browser. A POST's form
// fields are listed.
func serveLanding(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	w.Header().Set("Content-Type", htmlType)
	fmt.Fprintf(w, "<!doctype html><title>Landed %s</title><h1>Landed %s</h1>\n", html.EscapeString(name), html.EscapeString(name))
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err == nil {
			for k, v := range r.PostForm {
				fmt.Fprintf(w, "<p>%s = %s</p>\n", html.EscapeString(k), html.EscapeString(strings.Join(v, ", ")))
			}
		}
	}
}

// redirector serves /redirect?to=URL: a 302 to URL, when URL is on one of
// the two sites (the test server is no open redirect).
func redirector(primary, cross string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		to := r.URL.Query().Get("to")
		if !strings.HasPrefix(to, primary+"/") && !strings.HasPrefix(to, cross+"/") {
			http.Error(w, "redirect: to must be a URL on this test site", http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, to, http.StatusFound)
	}
}

// hits counts the requests each site served, by host:port and path.
type hits struct {
	mu sync.Mutex
	n  map[string]int
}

// count wraps next, counting every request before serving it.
func (h *hits) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		if h.n == nil {
			h.n = map[string]int{}
		}
		h.n[r.Host+r.URL.Path]++
		h.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// Hits reports how many requests for u (an address on either site; its
// query is ignored) reached the server so far: a test proves with it that
// the browser never sent a request it should have refused.
func (s *Site) Hits(u string) int {
	p, err := url.Parse(u)
	if err != nil {
		return 0
	}
	s.hits.mu.Lock()
	defer s.hits.mu.Unlock()
	return s.hits.n[p.Host+p.Path]
}
