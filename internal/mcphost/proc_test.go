package mcphost_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func readProcStat(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return string(b), err
}

// alive reports whether pid is a live process (not a zombie). It reads
// /proc, so tests that use it skip where there is none.
func alive(t testing.TB, pid int) bool {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see whether a process lives")
	}
	b, err := readProcStat(pid)
	// A zombie (exited, not yet reaped by its parent) still has an entry.
	return err == nil && !strings.Contains(b, ") Z ")
}
