//go:build unix

package stdio

import (
	"errors"
	"os/exec"
	"syscall"
)

// ProcGroup remembers a stdio server's process group, so that its
// grandchildren (npx starts node, uvx starts python) die with it.
type ProcGroup struct{ cmd *exec.Cmd }

// NewProcGroup makes cmd the leader of a new process group once started.
func NewProcGroup(cmd *exec.Cmd) *ProcGroup {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return &ProcGroup{cmd: cmd}
}

// PID returns the leader's pid, or 0 when it never started.
func (p *ProcGroup) PID() int {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Kill sends SIGKILL to every process left in the group. It runs after the
// SDK's graceful shutdown of the leader, so only stragglers get it.
func (p *ProcGroup) Kill() {
	pid := p.PID()
	if pid <= 0 {
		return
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return // EPERM and the like: nothing more we can do
	}
}
