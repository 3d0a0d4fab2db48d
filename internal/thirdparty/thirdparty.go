// Package thirdparty serves a set of real web apps nobody in this project
// wrote, on 127.0.0.1, for the tests and the benchmarks: TodoMVC's vanilla
// JavaScript example (npm todomvc), Swagger UI (npm swagger-ui-dist) over
// a small OpenAPI document of our own, and JSONEditor (npm jsoneditor) in
// tree mode over a small JSON document.
//
// The npm packages are not in the repository: scripts/deps.sh installs
// them, pinned, into $CANOPY_NODE_DIR (default ~/.cache/canopy-node) with
// the other test dependencies, and NodeModules finds them there. The host
// pages the packages do not ship (Swagger UI's page pointing at our
// document, JSONEditor's page creating an editor) are embedded from
// testdata/.
//
// TodoMVC's example is examples/vanillajs: plain JavaScript with its
// library (todomvc-common) vendored in bower_components, so it runs offline
// with no build step; its info bar reads learn.json from the package root,
// which is served too.
package thirdparty

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Package is one npm package the apps are served from, at the version
// scripts/deps.sh pins.
type Package struct {
	Name    string
	Version string
}

// Packages are the npm packages served, as scripts/deps.sh pins them.
var Packages = []Package{
	{"todomvc", "0.1.1"},
	{"swagger-ui-dist", "5.35.0"},
	{"jsoneditor", "10.4.3"},
}

// App is one app the server serves: a short name and the path of its page.
type App struct {
	Name string // "todomvc", "swagger-ui", "jsoneditor"
	Path string // the page to open, on the server
}

// Apps are the apps served, in a fixed order.
var Apps = []App{
	{"todomvc", "/todomvc/examples/vanillajs/"},
	{"swagger-ui", "/swagger/"},
	{"jsoneditor", "/jsoneditor/"},
}

//go:embed testdata/swagger.html testdata/petshop.json testdata/jsoneditor.html
var host embed.FS

// NodeDir is the folder scripts/deps.sh installs the Node test
// dependencies into: $CANOPY_NODE_DIR, else ~/.cache/canopy-node.
func NodeDir() string {
	if d := os.Getenv("CANOPY_NODE_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "canopy-node")
}

// NodeModules returns the node_modules folder that holds every package of
// Packages at its pinned version, or an error that says how to install
// them.
func NodeModules() (string, error) {
	mods := filepath.Join(NodeDir(), "node_modules")
	for _, p := range Packages {
		b, err := os.ReadFile(filepath.Join(mods, p.Name, "package.json"))
		if err != nil {
			return "", fmt.Errorf("thirdparty: %s is not installed in %s (run: CANOPY_WITH_TEST_DEPS=1 bash scripts/deps.sh)", p.Name, mods)
		}
		var pj struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &pj); err != nil || pj.Version != p.Version {
			return "", fmt.Errorf("thirdparty: %s in %s is %q, want %s (remove it and run: CANOPY_WITH_TEST_DEPS=1 bash scripts/deps.sh)", p.Name, mods, pj.Version, p.Version)
		}
	}
	return mods, nil
}

// Server serves the apps on 127.0.0.1.
type Server struct {
	origin string
	srv    *http.Server
	stop   func() bool // stops the context.AfterFunc that closes srv
}

// Serve serves the apps from the node_modules folder mods (NodeModules) on
// 127.0.0.1, on a port the kernel picks. It stops when ctx ends or Close
// is called.
func Serve(ctx context.Context, mods string) (*Server, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("thirdparty: listen: %w", err)
	}
	s := &Server{
		origin: "http://" + ln.Addr().String(),
		srv:    &http.Server{Handler: Handler(mods), ReadHeaderTimeout: 10 * time.Second},
	}
	go s.srv.Serve(ln)
	s.stop = context.AfterFunc(ctx, func() { s.srv.Close() })
	return s, nil
}

// URL returns the absolute URL of path on the server.
func (s *Server) URL(path string) string { return s.origin + path }

// Close stops the server.
func (s *Server) Close() error {
	s.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Handler serves the apps from mods:
//
//	/todomvc/…     the todomvc package (the app is /todomvc/examples/vanillajs/)
//	/swagger/      the Swagger UI host page; /swagger/petshop.json its document
//	/swagger-ui/…  swagger-ui-dist
//	/jsoneditor/   the JSONEditor host page; /jsoneditor/dist/… the package's dist
//	/api/…         the petshop document's endpoints, for "Try it out"
func Handler(mods string) http.Handler {
	mux := http.NewServeMux()
	dir := func(prefix, sub string) {
		mux.Handle(prefix, http.StripPrefix(strings.TrimSuffix(prefix, "/"), http.FileServer(http.Dir(filepath.Join(mods, sub)))))
	}
	dir("/todomvc/", "todomvc")
	dir("/swagger-ui/", "swagger-ui-dist")
	dir("/jsoneditor/dist/", "jsoneditor/dist")
	page := func(pattern, file, ctype string) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			b, err := host.ReadFile(file)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", ctype)
			w.Write(b)
		})
	}
	page("GET /swagger/{$}", "testdata/swagger.html", "text/html; charset=utf-8")
	page("GET /swagger/petshop.json", "testdata/petshop.json", "application/json")
	page("GET /jsoneditor/{$}", "testdata/jsoneditor.html", "text/html; charset=utf-8")
	mux.HandleFunc("/api/", serveAPI)
	return noStore(mux)
}

// pets are the petshop's pets, as /api/pets answers.
var pets = []map[string]any{
	{"id": 1, "name": "Rex", "species": "dog", "status": "available"},
	{"id": 2, "name": "Tom", "species": "cat", "status": "sold"},
	{"id": 3, "name": "Kiwi", "species": "bird", "status": "available"},
}

// serveAPI answers the petshop document's operations with small fixed
// JSON, so Swagger UI's "Execute" gets a real response.
func serveAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	p := strings.TrimPrefix(r.URL.Path, "/api")
	switch {
	case p == "/pets" && r.Method == http.MethodGet:
		out := []map[string]any{}
		for _, pet := range pets {
			if sp := r.URL.Query().Get("species"); sp == "" || pet["species"] == sp {
				out = append(out, pet)
			}
		}
		json.NewEncoder(w).Encode(out)
	case strings.HasPrefix(p, "/pets/") && r.Method == http.MethodGet:
		for _, pet := range pets {
			if fmt.Sprint(pet["id"]) == strings.TrimPrefix(p, "/pets/") {
				json.NewEncoder(w).Encode(pet)
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintln(w, `{"message":"no such pet"}`)
	default:
		w.WriteHeader(http.StatusNotImplemented)
		fmt.Fprintln(w, `{"message":"not implemented here"}`)
	}
}

// noStore keeps the browser from caching, so every run loads the same.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
