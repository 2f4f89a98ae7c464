//go:build !unix

package stdio

import "os/exec"

// ProcGroup is a no-op where process groups do not exist: [Conn.Close]
// still stops the direct child.
type ProcGroup struct{ cmd *exec.Cmd }

// NewProcGroup remembers cmd; there is no group to make.
func NewProcGroup(cmd *exec.Cmd) *ProcGroup { return &ProcGroup{cmd: cmd} }

// PID returns the child's pid, or 0 when it never started.
func (p *ProcGroup) PID() int {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Kill does nothing: there is no group.
func (p *ProcGroup) Kill() {}
