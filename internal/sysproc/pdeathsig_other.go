//go:build !linux

package sysproc

import "os/exec"

// DieWithParent leaves cmd as it is: only Linux kills a process when its
// parent dies.
func DieWithParent(cmd *exec.Cmd) {}
