package sysproc

import (
	"os"
	"os/exec"
	"syscall"
)

// NewSession leaves cmd as it is: there are no sessions to start it in.
func NewSession(cmd *exec.Cmd) {}

// NewGroup leaves cmd as it is: there are no process groups to start it in.
func NewGroup(cmd *exec.Cmd) {}

// Signal ends the process pid, whatever the signal.
func Signal(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// KillGroup ends the process pid (what it started stays).
func KillGroup(pid int, sig syscall.Signal) error { return Signal(pid, sig) }
