//go:build !unix

package builtin

import "os/exec"

// startGroup is a no-op where process groups are not available.
func startGroup(*exec.Cmd) {}

// killGroup kills cmd's process; its children may survive on this platform.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
