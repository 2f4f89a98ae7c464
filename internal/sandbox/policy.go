package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Policy says how a command may run. The zero value is an unconfined
// command with no limits.
type Policy struct {
	// Confine asks for confinement by the kernel. When false the command
	// gets only its environment, its own process group and the
	// parent-death signal, and the fields below are ignored.
	Confine bool
	// Read lists files and directories the command may read and execute,
	// with everything below them. [SystemRead] gives the places programs
	// need; callers add the roots.
	Read []string
	// Write lists files and directories the command may read, write,
	// create, rename and delete in, with everything below them.
	Write []string
	// Hide lists files and directories that stay unreadable even when they
	// lie below a Read or Write path: a directory is covered with an
	// empty read-only directory, a file with an empty file. A path that
	// does not exist is created as an empty directory (mode 0700) when it
	// lies below a Read or Write path outside [SystemRead], so that it
	// cannot appear there later; elsewhere it is skipped.
	Hide []string
	// Protected, when set, is asked at every start for more paths to
	// hide: where Switchboard's own files are now (internal/protect
	// follows them by identity when a parent folder was renamed). Every
	// parent of a hidden path that lies below a Write path is made a
	// mount point of its own in the sandbox, so the command cannot rename
	// it (EBUSY) and move what is hidden away from its cover.
	Protected func() []string
	// Network allows network access. Without it the command has a network
	// namespace of its own with no interface up, and TCP bind and connect
	// are refused by Landlock with EACCES.
	Network bool
	// Limits bound the command's resources.
	Limits Limits
	// Derived lists the read paths found from the command itself by
	// [Derive], with why each is there; they are in Read as well. Reports
	// ([Policy.Details]) show them; the sandbox does not read it.
	Derived []Grant
	// Exe is the binary re-executed as the shim; "" means the running
	// executable, whose main (or TestMain) must call [Shim].
	Exe string

	// pins are Read and Write as [Policy.Pin] resolved them; nil until then.
	pins *pinSet
}

// Limits bound a confined command's resources; a zero field means no limit
// of that kind.
type Limits struct {
	// Processes caps the processes and threads in the sandbox
	// (RLIMIT_NPROC). Root is exempt from RLIMIT_NPROC, so the pid
	// namespace's pid_max caps them too, at Processes+300 (the kernel
	// keeps the first 300 pids out of reuse).
	Processes int `json:"processes,omitempty"`
	// OpenFiles caps open file descriptors per process (RLIMIT_NOFILE).
	OpenFiles int `json:"openFiles,omitempty"`
	// CPUTime caps the CPU time of each process (RLIMIT_CPU, rounded up
	// to whole seconds); the kernel kills a process that exceeds it.
	CPUTime time.Duration `json:"cpuTime,omitempty"`
	// Memory caps each process's data segment, heap and private
	// writable mappings in bytes (RLIMIT_DATA): allocations beyond it fail.
	Memory int64 `json:"memory,omitempty"`
}

// DefaultLimits are the limits used where the configuration sets none.
func DefaultLimits() Limits {
	return Limits{Processes: 1024, OpenFiles: 4096, Memory: 8 << 30}
}

// SystemRead returns the places a program needs to read to run on this
// system: the binaries, libraries and configuration of the OS. Paths that
// do not exist are skipped when the policy is applied.
func SystemRead() []string {
	return []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/nix/store", "/run/systemd/resolve"}
}

// SystemHide returns files under the system paths that only root may read
// and that a sandboxed command must not see. Run as root, the sandbox's
// user is nobody on the host, so file permissions stop it from reading
// these and every other root-only file; the list is a second line.
func SystemHide() []string {
	return []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private"}
}

// validate checks what can be checked without the kernel.
func (p *Policy) validate() error {
	var errs []error
	for _, l := range []struct {
		name  string
		paths []string
	}{{"read", p.Read}, {"write", p.Write}, {"hide", p.Hide}} {
		for _, path := range l.paths {
			if !filepath.IsAbs(path) {
				errs = append(errs, fmt.Errorf("sandbox %s path %q is not absolute", l.name, path))
			}
		}
	}
	if p.Limits.Processes < 0 || p.Limits.OpenFiles < 0 || p.Limits.CPUTime < 0 || p.Limits.Memory < 0 {
		errs = append(errs, errors.New("sandbox limits must not be negative"))
	}
	return errors.Join(errs...)
}

// String describes p for `switchboard servers` and `doctor`: "off", or
// the read paths beyond [SystemRead], the write paths and the network.
func (p *Policy) String() string {
	if p == nil || !p.Confine {
		return "off"
	}
	read := []string{"system"}
	for _, r := range p.Read {
		if !slices.Contains(SystemRead(), r) {
			read = append(read, r)
		}
	}
	write := "nothing"
	if len(p.Write) > 0 {
		write = strings.Join(p.Write, ", ")
	}
	network := "off"
	if p.Network {
		network = "on"
	}
	return fmt.Sprintf("read %s; write %s; network %s", strings.Join(read, ", "), write, network)
}
