//go:build !unix

package builtin

import "os/exec"

// killGroup kills cmd's process; its children may survive on this platform.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
