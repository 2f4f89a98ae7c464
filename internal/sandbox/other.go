//go:build !linux

package sandbox

import (
	"os/exec"
	"runtime"
)

// Support says whether this system can confine commands, and why not.
type Support struct {
	Available   bool
	Reason      string
	LandlockABI int
}

// Check reports that only Linux can confine commands.
func Check() Support {
	return Support{Reason: "sandboxing needs Linux (Landlock and namespaces); on " + runtime.GOOS + " commands run unconfined"}
}

// Shim never runs outside Linux.
func Shim([]string) (int, bool) { return 0, false }

func confined(*Policy, string, string, []string, string, []string) (*exec.Cmd, error) {
	return nil, ErrUnsupported // Check fails first
}

// CloseInheritedOnExec does nothing outside Linux, where commands run
// unconfined with Switchboard's own permissions anyway.
func CloseInheritedOnExec() error { return nil }
