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
	// IDs are the read and write paths' device and inode as pinned; the
	// shim checks them again before it applies Landlock.
	IDs []fileID `json:"ids,omitempty"`
	// Mounts are descriptors the parent opened for the shim, which it
	// mounts and closes before anything else runs.
	Mounts []handed `json:"mounts,omitempty"`
}

// fileID names a file or directory by identity.
type fileID struct {
	Path string `json:"path"`
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
}

func plainAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// nobody is the host user and group a sandbox runs as when Switchboard
// runs as root, so that the kernel checks files as for any other user
// ("others"): root-only files stay unreadable without a list of them.
const nobody = 65534

func confined(p *Policy, exe, dir string, env []string, path string, args []string) (*exec.Cmd, error) {
	ps := p.pinned()
	if err := ps.verify(); err != nil {
		return nil, err
	}
	sp := spec{
		Read:    ps.readPaths(),
		Write:   ps.writePaths(),
		Hide:    realPaths(p.hidden()),
		Network: p.Network,
		Limits:  p.Limits,
		IDs:     ids(ps),
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
	asRoot := os.Geteuid() == 0
	files, err := handOver(&sp, ps, exe, asRoot)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(sp)
	if err != nil {
		closeAll(files)
		return nil, fmt.Errorf("encoding the sandbox policy: %w", err)
	}
	cmd := &exec.Cmd{
		// Through /proc/self/exe: the sandbox's user may not search the
		// directories above the binary (go test's are 0700), and the link
		// needs no search of them.
		Path: selfExe(p.Exe),
		Args: append([]string{exe, shimArg, string(b), "--", path}, args...),
		Env:  env,
		// No Dir: the shim enters sp.Dir itself, once its mounts make it
		// reachable to the sandbox's user.
		ExtraFiles: files,
	}
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC)
	if !p.Network {
		flags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	attr := &syscall.SysProcAttr{
		Cloneflags: flags,
		// Root inside: an execve keeps a process's capabilities in its
		// namespace only as uid 0 there, and the shim needs them to mount.
		// Outside it is this user, whose files it may read and write.
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}},
		// Required to map a group without privilege; the sandbox never
		// needs to change its groups.
		GidMappingsEnableSetgroups: false,
		Setpgid:                    true,
		// The shim is pid 1 of the sandbox: when it dies, every process
		// in the sandbox dies with it.
		Pdeathsig: syscall.SIGKILL,
	}
	if asRoot {
		// Root inside (the shim needs its capabilities in the namespace to
		// mount), nobody outside, with no supplementary groups (root's
		// would still open group-readable files).
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: nobody, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: nobody, Size: 1}}
		attr.GidMappingsEnableSetgroups = true
		attr.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	}
	cmd.SysProcAttr = attr
	return cmd, nil
}

// selfExe is the path the shim is executed by.
func selfExe(exe string) string {
	if exe != "" {
		return exe
	}
	return "/proc/self/exe"
}

// ids lists the device and inode of each pinned path that existed.
func ids(ps *pinSet) []fileID {
	var out []fileID
	for _, pp := range append(append([]pinned{}, ps.rd...), ps.wr...) {
		if pp.info == nil {
			continue
		}
		if st, ok := pp.info.Sys().(*syscall.Stat_t); ok {
			out = append(out, fileID{Path: pp.path, Dev: st.Dev, Ino: st.Ino})
		}
	}
	return out
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
