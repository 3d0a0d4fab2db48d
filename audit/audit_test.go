package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestOpen: the file is created 0600 and appended to, one JSON object per
// line, from many goroutines at once; a nil log writes nothing.
func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(path, []byte(`{"kind":"earlier"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() != path || (*Log)(nil).Path() != "" {
		t.Errorf("Path() = %q, want %q", l.Path(), path)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if err := l.Write(Entry{Time: time.Now(), Kind: "click", Step: i, Decision: "allowed", Outcome: "ok"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 51 || lines[0] != `{"kind":"earlier"}` {
		t.Fatalf("%d lines, first %q; want 51, the earlier line kept", len(lines), lines[0])
	}
	for _, ln := range lines[1:] {
		var e Entry
		if err := json.Unmarshal([]byte(ln), &e); err != nil || e.Kind != "click" {
			t.Errorf("line %q: %v", ln, err)
		}
	}
	fresh := filepath.Join(t.TempDir(), "new.jsonl")
	l2, err := Open(fresh)
	if err != nil {
		t.Fatal(err)
	}
	l2.Close()
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a new log's mode: %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	var none *Log
	if err := none.Write(Entry{}); err != nil || none.Close() != nil {
		t.Error("a nil log is not a no-op")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "no", "such", "dir", "a.jsonl")); err == nil || !strings.Contains(err.Error(), "audit log") {
		t.Errorf("a log in a missing folder: %v", err)
	}
}
