package sysproc

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes the system kill cmd's process when the process that
// started it dies, however it dies. Set it after NewGroup or NewSession,
// which replace cmd's attributes.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
