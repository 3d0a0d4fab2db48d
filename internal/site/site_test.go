package site

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// deadline bounds how long a test waits for something that should happen
// promptly. It is a failure threshold, never a delay.
const deadline = 10 * time.Second

// startSite serves the pages for the duration of the test.
func startSite(t *testing.T) *Site {
	t.Helper()
	s, err := Serve(t.Context())
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// newClient returns a client with its own connection pool, closed when the
// test ends.
func newClient(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// get fetches u and returns the response with its body read.
func get(t *testing.T, c *http.Client, u string) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", u, err)
	}
	return resp, body
}

// pagePaths returns every page path the site serves, except pydoc: the
// top-level pages, /index.html and the pages only loaded as frames.
func pagePaths() []string {
	paths := []string{
		"/index.html",
		"/frame-a.html", "/frame-b.html",
		"/cross-child.html", "/cross-grandchild.html",
		"/mixed-same.html", "/mixed-cross.html",
		"/domains-frame.html",
		"/frame-box-cross.html",
	}
	for p := range PageMarkers() {
		if p != PyDocOSPath {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths
}

func TestPagesOnBothOrigins(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	for _, origin := range []func(string) string{s.URL, s.CrossURL} {
		for _, p := range pagePaths() {
			u := origin(p)
			resp, body := get(t, c, u)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s: status %d, want 200", u, resp.StatusCode)
				continue
			}
			if got := resp.Header.Get("Content-Type"); got != htmlType {
				t.Errorf("GET %s: Content-Type %q, want %q", u, got, htmlType)
			}
			if got := resp.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("GET %s: Cache-Control %q, want no-store", u, got)
			}
			if bytes.Contains(body, []byte("{{")) {
				t.Errorf("GET %s: body still contains a {{placeholder}}", u)
			}
		}
	}
}

func TestPlaceholdersSubstituted(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	for _, tc := range []struct{ path, want string }{
		{"/cross.html", `src="` + s.CrossURL("/cross-child.html") + `"`},
		{"/mixed-same.html", `src="` + s.CrossURL("/mixed-cross.html") + `"`},
		{"/", s.URL("")},
	} {
		// Substitution is the same whichever site serves the page.
		for _, u := range []string{s.URL(tc.path), s.CrossURL(tc.path)} {
			if _, body := get(t, c, u); !strings.Contains(string(body), tc.want) {
				t.Errorf("GET %s: body does not contain %q", u, tc.want)
			}
		}
	}
	if !strings.HasPrefix(s.URL("/"), "http://127.0.0.1:") {
		t.Errorf("URL = %q, want the 127.0.0.1 origin", s.URL("/"))
	}
	if !strings.HasPrefix(s.CrossURL("/"), "http://127.0.0.2:") {
		t.Errorf("CrossURL = %q, want the 127.0.0.2 origin", s.CrossURL("/"))
	}
}

// iframeSrc matches the src attribute of an iframe tag.
var iframeSrc = regexp.MustCompile(`<iframe\b[^>]*\bsrc="([^"]*)"`)

// sourceWithFrames returns the source of the page at u followed by the
// sources of all its frames, recursively.
func sourceWithFrames(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, body := get(t, c, u)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", u, resp.StatusCode)
	}
	src := string(body)
	base, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range iframeSrc.FindAllStringSubmatch(src, -1) {
		ref, err := base.Parse(m[1])
		if err != nil {
			t.Fatalf("%s: bad iframe src %q: %v", u, m[1], err)
		}
		src += "\n" + sourceWithFrames(t, c, ref.String())
	}
	return src
}

func TestMarkersInSource(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	for p, m := range PageMarkers() {
		if p == PyDocOSPath && !HasPyDoc() {
			continue
		}
		if len(m.Visible) == 0 {
			t.Errorf("%s: no Visible markers", p)
		}
		src := sourceWithFrames(t, c, s.URL(p))
		for _, v := range m.Visible {
			if !strings.Contains(src, v) {
				t.Errorf("%s: Visible marker %q not in the page or its frames", p, v)
			}
		}
		for _, h := range m.Hidden {
			if !strings.Contains(src, h) {
				t.Errorf("%s: Hidden marker %q not in the page source, so it tests nothing", p, h)
			}
			for _, v := range m.Visible {
				if strings.Contains(v, h) {
					t.Errorf("%s: Hidden marker %q is part of Visible marker %q", p, h, v)
				}
			}
		}
	}
}

func TestCrossFramesComeFromCrossSite(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	_, body := get(t, c, s.URL("/cross.html"))
	m := iframeSrc.FindStringSubmatch(string(body))
	if m == nil || !strings.HasPrefix(m[1], s.CrossURL("/")) {
		t.Fatalf("cross.html frame src = %v, want one on %s", m, s.CrossURL("/"))
	}
	// The grandchild is same-origin with the cross-site child.
	_, body = get(t, c, s.CrossURL("/cross-child.html"))
	if !strings.Contains(string(body), `src="/cross-grandchild.html"`) {
		t.Errorf("cross-child.html does not embed /cross-grandchild.html relatively")
	}
}

func TestTable(t *testing.T) {
	s := startSite(t)
	_, body := get(t, newClient(t), s.URL("/table.html"))
	page := string(body)
	_, rest, ok := strings.Cut(page, "<tbody>")
	tbody, _, ok2 := strings.Cut(rest, "</tbody>")
	if !ok || !ok2 {
		t.Fatal("table.html has no <tbody>...</tbody>")
	}
	if n := strings.Count(tbody, "<tr>"); n != TableRows {
		t.Errorf("tbody has %d rows, want %d", n, TableRows)
	}
	for _, want := range []string{
		"<title>Users</title>", "<h1>Users</h1>", "<caption>Users</caption>",
		"<th scope=\"col\">Action</th>",
		"<tr><td>1</td><td>User 0001</td><td>user0001@example.test</td><td>Admin</td><td><a href=\"#edit-1\">Edit</a></td></tr>",
		"<td>2</td><td>User 0002</td><td>user0002@example.test</td><td>Editor</td>",
		"<td>3</td><td>User 0003</td><td>user0003@example.test</td><td>Viewer</td>",
		"<td>1000</td><td>User 1000</td><td>user1000@example.test</td><td>Admin</td><td><a href=\"#edit-1000\">Edit</a>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("table.html does not contain %q", want)
		}
	}
}

func TestHuge(t *testing.T) {
	s := startSite(t)
	_, body := get(t, newClient(t), s.URL("/huge.html"))
	// Count start tags: '<' followed by a letter.
	elements := 0
	for i := 0; i+1 < len(body); i++ {
		if body[i] == '<' && (body[i+1]|0x20 >= 'a' && body[i+1]|0x20 <= 'z') {
			elements++
		}
	}
	if elements < 100_000 {
		t.Errorf("huge.html has %d elements, want at least 100000", elements)
	}
	for _, want := range []string{"HUGE-FIRST", "HUGE-LAST"} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("huge.html does not contain %q", want)
		}
	}
}

func TestServeStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s, err := Serve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-s.done:
	case <-time.After(deadline):
		t.Fatal("Site did not stop after its context ended")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close after context end: %v", err)
	}
	for _, u := range []string{s.URL("/"), s.CrossURL("/")} {
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		host := parsed.Host
		if conn, err := net.Dial("tcp", host); err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after the context ended", host)
		}
	}
}

func TestNotFound(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	for _, p := range []string{"/nope.html", "/pages/login.html", "/download/nope.txt"} {
		if resp, _ := get(t, c, s.URL(p)); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, resp.StatusCode)
		}
	}
}

func TestPyDoc(t *testing.T) {
	s := startSite(t)
	resp, body := get(t, newClient(t), s.URL(PyDocOSPath))
	if !HasPyDoc() {
		if resp.StatusCode != http.StatusNotFound || string(body) != pyDocMissing {
			t.Errorf("GET %s without python3-doc: %d %q, want 404 %q",
				PyDocOSPath, resp.StatusCode, body, pyDocMissing)
		}
		return
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200", PyDocOSPath, resp.StatusCode)
	}
	if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, "text/html") {
		t.Errorf("GET %s: Content-Type %q, want text/html", PyDocOSPath, got)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("GET %s: Cache-Control %q, want no-store", PyDocOSPath, got)
	}
}

// TestLandingRedirectHits: /redirect sends to the site's own pages only,
// /landing/NAME answers GET and POST, and Hits counts what each site
// served.
func TestLandingRedirectHits(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	target := s.CrossURL("/landing/there")
	resp, body := get(t, c, s.URL("/redirect?to="+url.QueryEscape(target)))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Landed there") {
		t.Errorf("redirect to %s: %d %q", target, resp.StatusCode, body)
	}
	if got := s.Hits(s.URL("/redirect")); got != 1 {
		t.Errorf("primary /redirect hits = %d, want 1", got)
	}
	if got := s.Hits(target + "?ignored=1"); got != 1 {
		t.Errorf("cross /landing/there hits = %d, want 1", got)
	}
	if got := s.Hits(s.URL("/landing/there")); got != 0 {
		t.Errorf("primary /landing/there hits = %d, want 0", got)
	}
	if resp, _ := get(t, c, s.URL("/redirect?to=https://example.com/")); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("redirect off the site: %d, want 400", resp.StatusCode)
	}
	post, err := c.PostForm(s.CrossURL("/landing/post"), url.Values{"note": {"hi"}})
	if err != nil {
		t.Fatal(err)
	}
	defer post.Body.Close()
	pb, _ := io.ReadAll(post.Body)
	if !strings.Contains(string(pb), "Landed post") || !strings.Contains(string(pb), "note = hi") {
		t.Errorf("POST /landing/post: %q", pb)
	}
}
