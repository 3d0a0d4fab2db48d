//go:build !windows

package sysproc

import (
	"os/exec"
	"syscall"
)

// NewSession makes cmd start in a session (and process group) of its own:
// it has no controlling terminal, outlives the process that started it,
// and KillGroup reaches what it starts.
func NewSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// NewGroup makes cmd start in a process group of its own, in this
// process's session, so that KillGroup reaches what it starts.
func NewGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// Signal sends sig to the process pid.
func Signal(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// KillGroup sends sig to the process group that pid leads.
func KillGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
