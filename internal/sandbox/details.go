package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
)

// Details describes p's derived read paths for `switchboard doctor`, one
// line each: the path, why it is there and, when Switchboard runs as root
// (the sandbox's user is then nobody on the host), a directory above it
// that others may not enter, which keeps the path out of reach whatever
// the policy says. It is nil for an unconfined policy.
func (p *Policy) Details() []string {
	if p == nil || !p.Confine {
		return nil
	}
	var out []string
	for _, g := range p.Derived {
		line := fmt.Sprintf("read %s: %s", g.Path, g.Why)
		if os.Geteuid() == 0 {
			if dir := closedAbove(g.Path); dir != "" {
				line += fmt.Sprintf("; out of reach: %s is not searchable by others and, run as root, the sandbox's user is nobody "+
					"(install it elsewhere, or chmod o+x %s)", dir, dir)
			}
		}
		out = append(out, line)
	}
	return out
}

// closedAbove returns the first directory on the way to path (path itself
// included when it is one) that others may not search, or "".
func closedAbove(path string) string {
	var dirs []string
	for c := filepath.Clean(path); ; c = filepath.Dir(c) {
		dirs = append(dirs, c)
		// The shim covers these with its own tmpfs and binds back the
		// paths below them, opened by Switchboard: the directories on
		// the host's way to them do not count.
		if c == "/tmp" || c == "/dev/shm" || c == "/run" {
			dirs = dirs[:1]
			break
		}
		if c == "/" || c == "." {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		fi, err := os.Stat(dirs[i])
		if err != nil {
			return ""
		}
		if fi.IsDir() && fi.Mode().Perm()&0o001 == 0 {
			return dirs[i]
		}
	}
	return ""
}
