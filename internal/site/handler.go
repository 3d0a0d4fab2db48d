package site

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// PyDocDir is where Debian's python3-doc package installs the Python HTML
// documentation. It is served under /pydoc/ as a large, real-world site.
const PyDocDir = "/usr/share/doc/python3-doc/html"

// pyDocMissing is the body of every /pydoc/ response when PyDocDir does not
// exist.
const pyDocMissing = "python3-doc is not installed: apt-get install python3-doc\n"

// htmlType is the Content-Type of every HTML page.
const htmlType = "text/html; charset=utf-8"

// pageFiles holds the static pages. Each pages/NAME.html is served at
// /NAME.html; pages/index.html is also served at /.
//
//go:embed pages/*.html
var pageFiles embed.FS

// HasPyDoc reports whether the Python documentation is installed at
// PyDocDir, that is, whether the /pydoc/ pages can be served.
func HasPyDoc() bool {
	info, err := os.Stat(PyDocDir)
	return err == nil && info.IsDir()
}

// newHandler returns the handler for both sites. primary and cross are the
// origins substituted for {{self}} and {{cross}} in the static pages.
func newHandler(primary, cross string) (http.Handler, error) {
	pages, err := renderPages(primary, cross)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	for name, body := range pages {
		mux.Handle("GET /"+name, staticPage(body))
	}
	mux.Handle("GET /{$}", staticPage(pages["index.html"]))
	mux.HandleFunc("GET /table.html", serveTable)
	mux.HandleFunc("GET /huge.html", serveHuge)
	mux.HandleFunc("GET /grid.html", serveGrid)
	mux.HandleFunc("GET "+BigTablePath, serveBigTable)
	mux.HandleFunc("GET "+ManyFramesPath, serveManyFrames)
	mux.HandleFunc("GET "+FrameItemPath, serveFrameItem)
	mux.HandleFunc("GET /download/report.txt", serveReport)
	mux.HandleFunc("GET /download/named", serveNamed)
	mux.HandleFunc("GET /download/links", serveNamedLinks)
	mux.HandleFunc("GET /hang", serveHang)
	mux.HandleFunc("GET /parsing.html", serveParsing)
	mux.HandleFunc("GET /cookie", serveCookie)
	mux.HandleFunc("GET /bigtext", serveBigText)
	mux.HandleFunc("POST /api/save", serveSaveFails)
	mux.HandleFunc("GET /api/ok", serveOK)
	mux.HandleFunc("GET /api/slow", serveSlow)
	mux.HandleFunc("/api/missing/", http.NotFound)
	mux.HandleFunc("/landing/{name}", serveLanding)
	mux.HandleFunc("GET /redirect", redirector(primary, cross))
	mux.HandleFunc("GET /speculation.html", serveSpeculation)
	mux.HandleFunc("GET /speculation-rules.json", serveSpeculationRules)
	mux.Handle("GET /pydoc/", pyDocHandler())
	return noStore(mux), nil
}

// renderPages reads every embedded page and substitutes the origin
// placeholders. The result maps file names ("login.html") to bodies.
func renderPages(primary, cross string) (map[string][]byte, error) {
	names, err := fs.Glob(pageFiles, "pages/*.html")
	if err != nil {
		return nil, fmt.Errorf("site: list pages: %w", err)
	}
	origins := strings.NewReplacer("{{self}}", primary, "{{cross}}", cross)
	pages := make(map[string][]byte, len(names))
	for _, name := range names {
		raw, err := pageFiles.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("site: read %s: %w", name, err)
		}
		pages[path.Base(name)] = []byte(origins.Replace(string(raw)))
	}
	if _, ok := pages["index.html"]; !ok {
		return nil, fmt.Errorf("site: pages/index.html is missing")
	}
	return pages, nil
}

// noStore stops browsers from caching anything the site serves, so every
// test run sees the current pages.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// staticPage serves a fixed HTML body.
func staticPage(body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", htmlType)
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		if r.Method == http.MethodHead {
			return
		}
		w.Write(body)
	})
}

// serveHang is the subresource that keeps /slow.html from ever finishing
// loading. It sends the response headers, so the client knows the request
// is being served, then blocks without sending a body until the request
// context ends: the client disconnects or the Site is closed.
func serveHang(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/gif")
	w.WriteHeader(http.StatusOK)
	// Not every ResponseWriter can flush; blocking works regardless.
	_ = http.NewResponseController(w).Flush()
	<-r.Context().Done()
}

// serveParsing is a page whose body keeps coming: a paragraph every 50 ms,
// each flushed, for 10 s or until the client goes away. Its document stays
// in readyState "loading" while the parser adds them, which no
// MutationObserver started after the parser is told of.
func serveParsing(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", htmlType)
	rc := http.NewResponseController(w)
	io.WriteString(w, "<!doctype html><title>Parsing</title><h1>Still parsing</h1>\n")
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for n := 1; n <= 200; n++ {
		fmt.Fprintf(w, "<p>Paragraph %d</p>\n", n)
		if rc.Flush() != nil {
			return
		}
		select {
		case <-tick.C:
		case <-r.Context().Done():
			return
		}
	}
}

// serveSaveFails is a save the server refuses: 500, for failures.html.
func serveSaveFails(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "the database is down", http.StatusInternalServerError)
}

// serveOK answers "saved", for failures.html's working button.
func serveOK(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, "saved")
}

// serveSlow answers "slow" after ?ms= milliseconds (at most 2 s; 100 by
// default): a request a page keeps in flight for a while, as a slow
// server does. It ends early when the client goes away.
func serveSlow(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
	if err != nil || ms < 0 {
		ms = 100
	}
	t := time.NewTimer(min(time.Duration(ms)*time.Millisecond, 2*time.Second))
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, "slow")
}

// pyDocHandler serves PyDocDir under /pydoc/, or a one-line 404 when the
// documentation is not installed. Installation is checked on every request
// so that installing python3-doc takes effect without a restart.
func pyDocHandler() http.Handler {
	files := http.StripPrefix("/pydoc", http.FileServer(http.Dir(PyDocDir)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !HasPyDoc() {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, pyDocMissing)
			return
		}
		files.ServeHTTP(w, r)
	})
}
