// Package audit writes canopy's audit log (docs/tiers.md): one JSON line per
// action that reached the policy — allowed or refused — with when, from
// which surface and client, what was asked, what it resolved to, where
// (the page's URL or the program), the decision, the outcome and how long
// it took. The executor writes it; the caller redacts secrets from the
// entry before Write.
package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Entry is one line of the log.
type Entry struct {
	Time time.Time `json:"time"`
	// Surface is what the action came through: mcp, cli, shell, library.
	Surface string `json:"surface,omitempty"`
	// Client names the MCP session (or another client) it came from.
	Client string `json:"client,omitempty"`
	// Action is the action in step syntax; Kind its kind.
	Kind   string `json:"kind"`
	Action string `json:"action"`
	// Step is the action's place in a batch (1-based), or 0.
	Step int `json:"step,omitempty"`
	// Target is what the action named (a selector or ref) and what it
	// resolved to.
	Target *Target `json:"target,omitempty"`
	// Reaches are the nodes the action reaches besides its target, which
	// the policy judged too: the focused field keys go to, the form's
	// button a submit presses, the node under a clicked container's
	// centre, a drag's drop target; as tree lines.
	Reaches []string `json:"reaches,omitempty"`
	// URL is the page the action ran on (or loads); App the program
	// open_app starts.
	URL string `json:"url,omitempty"`
	App string `json:"app,omitempty"`
	// Tier is the tier the action needed; Decision the policy's:
	// "allowed", "refused", or "" when the action failed before it was
	// asked (a selector that matched nothing).
	Tier     string `json:"tier"`
	Decision string `json:"decision"`
	// Outcome is "ok", or the error; Outcomes the outcome lines.
	Outcome  string   `json:"outcome"`
	Outcomes []string `json:"outcomes,omitempty"`
	// File is the file the action wrote (a screenshot given a path,
	// print's PDF): where it landed, after any free name was picked.
	File string `json:"file,omitempty"`
	// Duration is from the request to the reply.
	Duration time.Duration `json:"duration_ns"`
}

// Target is an action's target: as asked and as resolved.
type Target struct {
	Selector string `json:"selector,omitempty"`
	Ref      string `json:"ref,omitempty"`
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
}

// Log appends entries to a writer, one JSON object per line. It is safe
// for concurrent use (several sessions may share one log).
type Log struct {
	mu   sync.Mutex
	w    io.Writer
	enc  *json.Encoder
	c    io.Closer
	path string // the file Open opened, absolute
}

// New returns a log that writes to w.
func New(w io.Writer) *Log {
	return &Log{w: w, enc: json.NewEncoder(w)}
}

// Open opens (or creates, mode 0600) the log file at path for appending.
func Open(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the audit log: %w", err)
	}
	l := New(f)
	l.c = f
	if l.path, err = filepath.Abs(path); err != nil {
		l.path = path
	}
	return l, nil
}

// Path is the file Open opened, made absolute: no file an action writes
// may land on it (package save). "" for a nil log or one New made.
func (l *Log) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// Write appends one entry. A nil log writes nothing.
func (l *Log) Write(e Entry) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.enc.Encode(e); err != nil {
		return fmt.Errorf("write the audit log: %w", err)
	}
	return nil
}

// Close closes the file Open opened.
func (l *Log) Close() error {
	if l == nil || l.c == nil {
		return nil
	}
	return l.c.Close()
}
