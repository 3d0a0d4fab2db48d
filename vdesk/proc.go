//go:build linux

package vdesk

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/canopy-dev/canopy/internal/sysproc"
)

// Program names that identify the processes Up starts, as they appear in
// argv[0] of /proc/PID/cmdline.
const (
	xvfbName = "Xvfb"
	busName  = "dbus-daemon"
)

// proc identifies one process across time: a pid alone may be reused once
// the process is gone, the pid with its start time may not.
type proc struct {
	PID int `json:"pid"`
	// StartTime is field 22 of /proc/PID/stat (clock ticks since boot).
	StartTime uint64 `json:"start_time"`
}

// procStat is what /proc/PID/stat tells about a process.
type procStat struct {
	state     byte   // R, S, D, Z, …
	ppid      int    // parent pid
	startTime uint64 // clock ticks since boot
}

// readStat parses /proc/PID/stat. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so the fields
// are counted from the last ')'.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("malformed /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state), f[1] field 4 (ppid), f[19] field 22.
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, errors.New("malformed /proc stat")
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, err
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procStat{}, err
	}
	return procStat{state: f[0][0], ppid: ppid, startTime: start}, nil
}

// identify returns the proc for a running pid.
func identify(pid int) (proc, error) {
	st, err := readStat(pid)
	if err != nil {
		return proc{}, err
	}
	return proc{PID: pid, StartTime: st.startTime}, nil
}

// running reports whether p is still the same, not yet dead process. A
// zombie counts as gone: it has exited and only waits to be reaped.
func (p proc) running() bool {
	if p.PID <= 0 {
		return false
	}
	st, err := readStat(p.PID)
	if err != nil || st.state == 'Z' || st.state == 'X' {
		return false
	}
	return p.StartTime == 0 || st.startTime == p.StartTime
}

// alive reports whether p runs and still is the program name (a check
// against a state file that names a pid now used by something else).
func (p proc) alive(name string) bool {
	return p.running() && isProgram(p.PID, name)
}

// isProgram reports whether argv[0] of pid, or argv[1] (a wrapper script
// run by its interpreter), has the base name name.
func isProgram(pid int, name string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	argv := bytes.SplitN(b, []byte{0}, 3)
	for _, a := range argv[:min(2, len(argv))] {
		if filepath.Base(string(a)) == name {
			return true
		}
	}
	return false
}

// signal sends sig to p unless p is gone or its pid now belongs to another
// process.
func (p proc) signal(sig syscall.Signal) error {
	if !p.running() {
		return nil
	}
	err := sysproc.Signal(p.PID, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// withEnv returns the processes whose initial environment holds the entry
// kv ("KEY=value"), except this process and its ancestors: a shell that ran
// `eval "$(canopy desktop up)"` and then `canopy desktop down` carries the
// variable too, and must survive. Processes whose environment cannot be
// read (other users') are skipped.
func withEnv(kv string) []proc {
	skip := map[int]bool{}
	for pid := os.Getpid(); pid > 1 && !skip[pid]; {
		skip[pid] = true
		st, err := readStat(pid)
		if err != nil {
			break
		}
		pid = st.ppid
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	needle := []byte("\x00" + kv + "\x00")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 1 || skip[pid] {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || len(env) == 0 {
			continue
		}
		env = append([]byte{0}, env...)
		if env[len(env)-1] != 0 {
			env = append(env, 0)
		}
		if !bytes.Contains(env, needle) {
			continue
		}
		if p, err := identify(pid); err == nil && p.running() {
			out = append(out, p)
		}
	}
	return out
}
