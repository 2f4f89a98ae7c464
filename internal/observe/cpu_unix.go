//go:build unix

package observe

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user plus system CPU time this process has used.
// Benchmarks divide it by the work done: on a shared machine CPU per
// operation is steadier than wall-clock time.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
