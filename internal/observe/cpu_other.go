//go:build !unix

package observe

import "time"

// ProcessCPU is 0 where getrusage is missing: CPU figures then read 0 and
// only wall-clock figures mean something.
func ProcessCPU() time.Duration { return 0 }
