//go:build unix

package mcphost

import (
	"errors"
	"os/exec"
	"syscall"
)

// procGroup remembers a stdio server's process group, so that its
// grandchildren (npx starts node, uvx starts python) die with it.
type procGroup struct{ cmd *exec.Cmd }

// newProcGroup makes cmd the leader of a new process group once started.
func newProcGroup(cmd *exec.Cmd) *procGroup {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return &procGroup{cmd: cmd}
}

// pid returns the leader's pid, or 0 when it never started.
func (p *procGroup) pid() int {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// kill sends SIGKILL to every process left in the group. It runs after the
// SDK's graceful shutdown of the leader, so only stragglers get it.
func (p *procGroup) kill() {
	pid := p.pid()
	if pid <= 0 {
		return
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return // EPERM and the like: nothing more we can do
	}
}
