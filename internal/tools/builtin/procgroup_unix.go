//go:build unix

package builtin

import (
	"os/exec"
	"syscall"
)

// startGroup makes cmd the leader of a new process group, so that killGroup
// reaches the children it starts as well.
func startGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills cmd's whole process group. It is safe to call after the
// group is gone.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH: already gone
}
