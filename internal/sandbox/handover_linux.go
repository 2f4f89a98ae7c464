package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// holdArg marks a re-execution of the binary that only holds a user
// namespace open (see nobodyNamespace).
const holdArg = "__switchboard_sandbox_hold"

// handed is a mount the parent made for the shim, detached (open_tree),
// for the shim to move onto Path: what the shim, as the sandbox's user,
// could not reach itself.
type handed struct {
	Path string `json:"path"`
	FD   int    `json:"fd"`
	Dir  bool   `json:"dir,omitempty"`
}

// handOver makes the mounts the shim cannot make itself and records them
// in sp.Mounts; the files are the shim's descriptors 3, 4, ... in that
// order. It does so only when Switchboard runs as root, where the
// sandbox's user is nobody on the host: nobody may not write in the write
// paths, nor search the directories above a read path below /tmp. Each
// write path is handed as an idmapped mount, on which root's files belong
// to the sandbox's user and what it writes belongs to root on the disk;
// each read path below a directory the shim covers (/tmp, /dev/shm, /run)
// as a plain copy of its mount, taken from the pinned object. Otherwise
// the shim opens those paths itself, and checks what it opened.
func handOver(sp *spec, ps *pinSet, exe string, asRoot bool) (files []*os.File, err error) {
	defer func() {
		if err != nil {
			closeAll(files)
			files = nil
		}
	}()
	add := func(fd int, pp pinned) {
		sp.Mounts = append(sp.Mounts, handed{Path: pp.path, FD: 3 + len(files), Dir: pp.info.IsDir()})
		files = append(files, os.NewFile(uintptr(fd), pp.path))
	}
	done := map[string]bool{}
	if asRoot && len(ps.wr) > 0 {
		ns, err := nobodyNamespace(exe)
		if err != nil {
			return nil, err
		}
		defer unix.Close(ns)
		for _, w := range ps.wr {
			if w.info == nil || done[w.path] {
				continue
			}
			fd, err := idmapped(w, ns)
			if err != nil {
				return nil, err
			}
			add(fd, w)
			done[w.path] = true
		}
	}
	if !asRoot {
		return nil, nil
	}
	for _, pp := range ps.rd {
		if pp.info == nil || done[pp.path] || !under(pp.path, coveredDirs()...) {
			continue
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, pp.path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			continue // gone since it was pinned: nothing to keep
		}
		if err := sameObject(fd, pp); err != nil {
			_ = unix.Close(fd)
			return nil, err
		}
		add(fd, pp)
		done[pp.path] = true
	}
	return files, nil
}

// idmapped returns a detached copy of the mounts at w.path on which host
// root's files belong to the user namespace ns's root (the sandbox's user).
func idmapped(w pinned, ns int) (int, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, w.path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return -1, idmapError(w.path, err)
	}
	if err := sameObject(fd, w); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Userns_fd: uint64(ns)}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, attr); err != nil {
		// A mount below the path on a file system without idmapped
		// mounts: map the path's own mount only; below it, the sandbox
		// has what any other user has.
		if err2 := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, attr); err2 != nil {
			_ = unix.Close(fd)
			return -1, idmapError(w.path, err2)
		}
	}
	return fd, nil
}

func idmapError(path string, err error) error {
	return fmt.Errorf("giving the sandbox write access to %s: %w (run as root, Switchboard runs sandboxes as the unprivileged user nobody "+
		"and lends them the write paths through an idmapped mount, which needs Linux 5.12 or later and a file system that supports it, "+
		"such as ext4, xfs, btrfs, overlayfs or tmpfs; run Switchboard as an ordinary user who owns the write paths instead)", path, err)
}

// sameObject reports an error when fd is not the object pp was pinned to.
func sameObject(fd int, pp pinned) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("checking sandbox path %s: %w", pp.path, err)
	}
	if want, ok := pp.info.Sys().(*syscall.Stat_t); ok && (st.Dev != want.Dev || st.Ino != want.Ino) {
		return fmt.Errorf("sandbox path %s is no longer the %s it was when the configuration was loaded (it was replaced, "+
			"perhaps by the confined process): refusing to start; put it back, or reload the configuration if the change was yours", pp.path, kindOf(pp.info))
	}
	return nil
}

// nobodyNamespace returns a descriptor of a new user namespace in which
// root is the host's nobody: the mapping idmapped mounts are made with. It
// starts the binary in that namespace, stopped before it runs a single
// instruction (a traced exec stops with SIGTRAP), opens the namespace, and
// kills it. Where ptrace is not allowed (Yama's ptrace_scope 3, a seccomp
// profile), the binary runs as a holder that waits for its stdin to close.
func nobodyNamespace(exe string) (int, error) {
	ns, err := holdNamespace(exe, true)
	if err != nil {
		ns, err = holdNamespace(exe, false)
	}
	if err != nil {
		return -1, fmt.Errorf("preparing the sandbox's user namespace: %w", err)
	}
	return ns, nil
}

func holdNamespace(exe string, traced bool) (int, error) {
	m := []syscall.SysProcIDMap{{ContainerID: 0, HostID: nobody, Size: 1}}
	hold := exec.Command(selfExe(exe), holdArg) //nolint:noctx // killed below
	hold.Args[0] = exe
	hold.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, UidMappings: m, GidMappings: m, Ptrace: traced, Pdeathsig: syscall.SIGKILL}
	var stdin io.WriteCloser
	if !traced {
		var err error
		if stdin, err = hold.StdinPipe(); err != nil {
			return -1, err
		}
	}
	if err := hold.Start(); err != nil {
		return -1, err
	}
	ns, err := unix.Open(fmt.Sprintf("/proc/%d/ns/user", hold.Process.Pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if stdin != nil {
		_ = stdin.Close()
	}
	_ = hold.Process.Kill()
	_ = hold.Wait() // killed: its status says nothing
	if err != nil {
		return -1, err
	}
	return ns, nil
}

// hold is the holder's life when it runs (see nobodyNamespace): wait
// until the parent closes stdin.
func hold() int {
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// coveredDirs are the directories the shim replaces with empty tmpfs.
func coveredDirs() []string {
	dirs := make([]string, len(covered))
	for i, c := range covered {
		dirs[i] = c.dir
	}
	return dirs
}
