//go:build linux

package vdesk

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// stateVersion is the format version of desktop.json.
const stateVersion = 1

// state is what desktop.json holds: enough for another process to use the
// desktop (Env) and to stop exactly what Up started (Down).
type state struct {
	Version    int       `json:"version"`
	Dir        string    `json:"dir"`
	Display    string    `json:"display"`
	BusAddress string    `json:"bus_address"`
	RuntimeDir string    `json:"runtime_dir"`
	Home       string    `json:"home"`
	Width      int       `json:"width"`
	Height     int       `json:"height"`
	Xvfb       proc      `json:"xvfb"`
	Bus        proc      `json:"dbus_daemon"`
	Started    time.Time `json:"started"`
}

// write saves s to Dir/desktop.json atomically (a reader never sees half a
// file).
func (s state) write() error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode desktop state: %w", err)
	}
	path := filepath.Join(s.Dir, stateFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write desktop state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write desktop state: %w", err)
	}
	return nil
}

// readState reads and checks a desktop.json.
func readState(path string) (state, error) {
	var s state
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("read desktop state: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("read desktop state %s: %w", path, err)
	}
	if s.Version != stateVersion {
		return s, fmt.Errorf("desktop state %s has version %d, this canopy reads version %d", path, s.Version, stateVersion)
	}
	if s.Display == "" || s.BusAddress == "" || s.RuntimeDir == "" || s.Home == "" || s.Xvfb.PID <= 0 || s.Bus.PID <= 0 {
		return s, fmt.Errorf("desktop state %s is incomplete", path)
	}
	return s, nil
}
