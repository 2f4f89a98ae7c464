//go:build !linux

package cli

import "os/exec"

// dieWithBenchmark does nothing where the kernel cannot tie a child's life
// to its parent's; the benchmark's cleanup stops its children.
func dieWithBenchmark(*exec.Cmd) {}
