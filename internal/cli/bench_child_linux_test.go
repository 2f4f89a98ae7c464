//go:build linux

package cli

import (
	"os/exec"
	"syscall"
)

// dieWithBenchmark has the kernel kill cmd's process when the benchmark's
// process dies, however it dies: a benchmark stopped with SIGKILL (or a
// timeout) left its gateways and servers running. Their own children go
// with them: Switchboard starts its servers the same way, and the others
// see their stdin close.
func dieWithBenchmark(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
