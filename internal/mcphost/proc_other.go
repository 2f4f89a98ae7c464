//go:build !unix

package mcphost

import "os/exec"

// procGroup is a no-op where process groups do not exist: the SDK's
// CommandTransport still stops the direct child.
type procGroup struct{ cmd *exec.Cmd }

func newProcGroup(cmd *exec.Cmd) *procGroup { return &procGroup{cmd: cmd} }

func (p *procGroup) pid() int {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

func (p *procGroup) kill() {}
