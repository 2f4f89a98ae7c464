package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// shimArg marks a re-execution of the binary as the sandbox shim.
const shimArg = "__switchboard_sandbox"

// spec is what the parent tells the shim, as JSON in its arguments. Paths
// are absolute with symlinks resolved, so that mounts and Landlock rules
// land on the real directories.
type spec struct {
	Read    []string `json:"read,omitempty"`
	Write   []string `json:"write,omitempty"`
	Hide    []string `json:"hide,omitempty"`
	Network bool     `json:"network,omitempty"`
	Limits  Limits   `json:"limits"`
	Dir     string   `json:"dir,omitempty"`
}

func plainAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func confined(p *Policy, exe, dir string, env []string, path string, args []string) (*exec.Cmd, error) {
	sp := spec{
		Read:    realPaths(p.Read),
		Write:   realPaths(p.Write),
		Hide:    realPaths(p.hidden()),
		Network: p.Network,
		Limits:  p.Limits,
	}
	if dir != "" {
		d, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("resolving working directory %q: %w", dir, err)
		}
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		sp.Dir = d
	}
	b, err := json.Marshal(sp)
	if err != nil {
		return nil, fmt.Errorf("encoding the sandbox policy: %w", err)
	}
	cmd := &exec.Cmd{
		Path: exe,
		Args: append([]string{exe, shimArg, string(b), "--", path}, args...),
		Env:  env,
		Dir:  dir,
	}
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC)
	if !p.Network {
		flags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		// Required to map a group without privilege; the sandbox never
		// needs to change its groups.
		GidMappingsEnableSetgroups: false,
		Setpgid:                    true,
		// The shim is pid 1 of the sandbox: when it dies, every process
		// in the sandbox dies with it.
		Pdeathsig: syscall.SIGKILL,
	}
	return cmd, nil
}

// realPaths makes each path absolute with its symlinks resolved; a path
// that does not exist is kept as it is (the shim skips it).
func realPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}
