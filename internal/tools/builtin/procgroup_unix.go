//go:build unix

package builtin

import (
	"os/exec"
	"syscall"
)

// killGroup kills cmd's whole process group ([sandbox.Command] gives it
// one). It is safe to call after the group is gone.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH: already gone
}
