package site

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// startHang requests /hang on s and returns once the response headers have
// arrived, that is, once the handler is blocked. The returned channel
// receives the result of reading the body.
func startHang(t *testing.T, ctx context.Context, s *Site) <-chan error {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL("/hang"), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := newClient(t).Do(req)
	if err != nil {
		t.Fatalf("GET /hang: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /hang: status %d", resp.StatusCode)
	}
	read := make(chan error, 1)
	go func() {
		defer resp.Body.Close()
		_, err := io.Copy(io.Discard, resp.Body)
		read <- err
	}()
	return read
}

func TestSlowPageReferencesHang(t *testing.T) {
	s := startSite(t)
	_, body := get(t, newClient(t), s.URL("/slow.html"))
	page := string(body)
	marker, hang := strings.Index(page, "MARKER-SLOW"), strings.Index(page, `src="/hang"`)
	if marker < 0 || hang < 0 || marker > hang {
		t.Errorf("slow.html must contain MARKER-SLOW before the /hang subresource")
	}
}

func TestHangReturnsWhenClientCancels(t *testing.T) {
	s := startSite(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	read := startHang(t, ctx, s)
	select {
	case err := <-read:
		t.Fatalf("/hang body ended before cancel: %v", err)
	default:
	}
	cancel()
	select {
	case err := <-read:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("reading /hang after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(deadline):
		t.Fatal("/hang did not return after the request was cancelled")
	}
}

func TestCloseEndsHang(t *testing.T) {
	s, err := Serve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	read := startHang(t, t.Context(), s)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	for range 2 {
		select {
		case err := <-closed:
			if err != nil {
				t.Errorf("Close: %v", err)
			}
		case <-read:
			// Either the handler returned first and the response ended
			// cleanly, or the connection was closed under it.
		case <-time.After(deadline):
			t.Fatal("Close did not end the /hang request")
		}
	}
}

// flushSignal is a ResponseWriter that reports its first Flush.
type flushSignal struct {
	*httptest.ResponseRecorder
	flushed chan struct{}
}

func (f *flushSignal) Flush() {
	f.ResponseRecorder.Flush()
	close(f.flushed)
}

func TestHangHandlerReturnsOnContextEnd(t *testing.T) {
	s := startSite(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := &flushSignal{httptest.NewRecorder(), make(chan struct{})}
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/hang", nil)
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.Handler().ServeHTTP(w, req)
	}()
	select {
	case <-w.flushed:
	case <-served:
		t.Fatal("/hang handler returned before its context ended")
	case <-time.After(deadline):
		t.Fatal("/hang handler did not send its headers")
	}
	cancel()
	select {
	case <-served:
	case <-time.After(deadline):
		t.Fatal("/hang handler did not return after its context ended")
	}
}
