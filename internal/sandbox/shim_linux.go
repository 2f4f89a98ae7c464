package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// Exit statuses of the shim itself, as env(1) and shells use them.
const (
	exitSetup      = 125 // the sandbox could not be set up
	exitCannotExec = 126 // the command exists but could not be run
	exitNotFound   = 127 // the command does not exist
)

// Shim runs the sandbox shim when args (os.Args) ask for it, and reports
// the exit status with ok true; otherwise it returns ok false at once and
// does nothing. The main function of the switchboard binary, and TestMain
// of every test binary that starts confined commands, call it first:
//
//	if code, ok := sandbox.Shim(os.Args); ok {
//		os.Exit(code)
//	}
func Shim(args []string) (code int, ok bool) {
	if len(args) == 2 && args[1] == holdArg {
		return hold(), true
	}
	if len(args) < 2 || args[1] != shimArg {
		return 0, false
	}
	return runShim(args[2:], os.Stderr), true
}

func runShim(args []string, stderr io.Writer) int {
	// The command is forked from this thread; keep the goroutine on it.
	runtime.LockOSThread()
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "switchboard sandbox: "+format+"\n", a...)
		return code
	}
	if os.Getpid() != 1 {
		return fail(exitSetup, "the shim runs only as the first process of a sandbox that Switchboard starts")
	}
	if len(args) < 3 || args[1] != "--" {
		return fail(exitSetup, "usage: %s SPEC -- COMMAND [ARG...]", shimArg)
	}
	var sp spec
	if err := json.Unmarshal([]byte(args[0]), &sp); err != nil {
		return fail(exitSetup, "reading the policy: %v", err)
	}
	// Descriptors Switchboard inherited and did not mark close-on-exec
	// reach the shim too; none may stay open in the sandbox.
	if err := closeInherited(&sp); err != nil {
		return fail(exitSetup, "%v", err)
	}
	if err := setup(&sp); err != nil {
		return fail(exitSetup, "%v", err)
	}
	if err := closeOnExec(); err != nil {
		return fail(exitSetup, "%v", err)
	}
	return supervise(args[2], args[2:], stderr)
}

// setup builds the sandbox around this process, in the order the package
// documentation gives. It must run before any other process exists in the
// namespace.
func setup(sp *spec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting a fresh /proc (the kernel refuses it inside some containers): %w", err)
	}
	if err := privateTmp(sp); err != nil {
		return err
	}
	visible := append(append([]string{}, sp.Read...), sp.Write...)
	if err := pinParents(sp); err != nil {
		return err
	}
	for _, h := range sp.Hide {
		// A hidden directory that does not exist yet (the data directory
		// before the first database) could appear later below a path the
		// command sees; make it now, empty, so it is covered.
		if under(h, visible...) && !under(h, SystemRead()...) {
			_ = os.Mkdir(h, 0o700)
		}
		if err := hide(h); err != nil {
			return err
		}
	}
	if err := limit(sp.Limits); err != nil {
		return err
	}
	if sp.Dir != "" {
		if err := os.Chdir(sp.Dir); err != nil {
			return fmt.Errorf("entering the working directory: %w", err)
		}
	}
	if err := checkIDs(sp.IDs); err != nil {
		return err
	}
	if err := restrict(sp); err != nil {
		return err
	}
	return dropCaps()
}

// covered are the host directories the sandbox replaces with empty tmpfs:
// the shared temporary directories, so the command neither sees nor
// leaves files in the host's, and /run, whose sockets (the Docker and D-Bus
// sockets, user runtime directories) Landlock before ABI 9 would let it
// connect to. /run stays unreadable under Landlock.
var covered = []struct{ dir, mode string }{{"/tmp", "1777"}, {"/dev/shm", "1777"}, {"/run", "0755"}}

// privateTmp mounts the covered directories empty, then brings back the
// policy's paths below them (tests keep their roots in /tmp; name
// resolution needs /run/systemd/resolve) and the mounts the parent handed
// over (see handOver), closing them. A path the parent did not hand over
// is opened here before the covering, and must be the object pinned.
func privateTmp(sp *spec) error {
	type keep struct {
		path string
		fd   int
		dir  bool
		tree bool
	}
	var keeps []keep
	for _, h := range sp.Mounts {
		keeps = append(keeps, keep{h.Path, h.FD, h.Dir, true})
	}
	defer func() {
		for _, k := range keeps {
			_ = unix.Close(k.fd)
		}
	}()
	for _, p := range append(append([]string{}, sp.Read...), sp.Write...) {
		if !under(p, coveredDirs()...) || slices.ContainsFunc(keeps, func(k keep) bool { return k.path == p }) {
			continue
		}
		fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // missing: nothing to keep
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || !sameID(sp.IDs, p, &st) {
			_ = unix.Close(fd)
			return fmt.Errorf("sandbox path %s was replaced while the sandbox started: refusing to confine the command to it", p)
		}
		keeps = append(keeps, keep{p, fd, st.Mode&unix.S_IFMT == unix.S_IFDIR, false})
	}
	for _, c := range covered {
		if st, err := os.Lstat(c.dir); err != nil || !st.IsDir() {
			continue
		}
		if err := unix.Mount("tmpfs", c.dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode="+c.mode); err != nil {
			return fmt.Errorf("mounting a private %s: %w", c.dir, err)
		}
	}
	for _, k := range keeps {
		if under(k.path, coveredDirs()...) {
			if err := mountPoint(k.path, k.dir); err != nil {
				return err
			}
		}
		if k.tree {
			if err := unix.MoveMount(k.fd, "", unix.AT_FDCWD, k.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
				return fmt.Errorf("mounting %s for the sandbox's user: %w", k.path, err)
			}
			continue
		}
		src := "/proc/self/fd/" + strconv.Itoa(k.fd)
		if err := unix.Mount(src, k.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("binding %s into the private /tmp: %w", k.path, err)
		}
	}
	return nil
}

// mountPoint creates an empty directory or file at p to mount on.
func mountPoint(p string, dir bool) error {
	if dir {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("creating mount point %s: %w", p, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("creating mount point %s: %w", p, err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		return fmt.Errorf("creating mount point %s: %w", p, err)
	}
	return f.Close()
}

// hide covers p with something empty and read-only: an empty tmpfs for a
// directory, /dev/null for anything else. A mount cannot be removed or
// renamed away from inside (Landlock forbids mount changes and the
// capabilities are gone), and writes to a covered file go to /dev/null.
func hide(p string) error {
	var st unix.Stat_t
	switch err := unix.Lstat(p, &st); {
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR):
		return nil // absent: nothing to hide
	case errors.Is(err, unix.EACCES):
		// Out of the sandbox user's reach (below /root, run as root,
		// where that user is nobody): the command, with no more rights
		// than the shim, cannot reach it either.
		return nil
	case err != nil:
		return fmt.Errorf("hiding %s: %w", p, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
			return fmt.Errorf("hiding %s: %w", p, err)
		}
		return nil
	}
	if err := unix.Mount("/dev/null", p, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("hiding %s: %w", p, err)
	}
	if err := unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		return fmt.Errorf("hiding %s read-only: %w", p, err)
	}
	return nil
}

// limit sets the resource limits every process of the sandbox inherits.
// RLIMIT_NPROC counts per user and user namespace, and this namespace is
// new, so it counts the sandbox's own processes only; root is exempt from
// it, so pid_max of the new pid namespace (Linux 6.14 and later) caps the
// number of pids too.
func limit(l Limits) error {
	set := func(name string, res int, v uint64) error {
		if err := unix.Setrlimit(res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("limiting %s to %d: %w", name, v, err)
		}
		return nil
	}
	if l.Processes > 0 {
		if err := set("processes", unix.RLIMIT_NPROC, uint64(l.Processes)); err != nil {
			return err
		}
		// Once the pid counter of a namespace has passed 300 the kernel
		// allocates new pids only from 300 up (RESERVED_PIDS), so pid_max
		// is 300 above the cap: at most Processes+300 at first, and
		// Processes once pids wrap. Kernels before 6.14 refuse pid_max in
		// a pid namespace other than the first; RLIMIT_NPROC still
		// applies then.
		_ = os.WriteFile("/proc/sys/kernel/pid_max", []byte(strconv.Itoa(l.Processes+301)), 0)
	}
	if l.OpenFiles > 0 {
		// syscall.Setrlimit, not unix: it also stops the Go runtime from
		// restoring its own start-up limit in the child.
		v := uint64(l.OpenFiles)
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("limiting open files to %d: %w", v, err)
		}
	}
	if l.CPUTime > 0 {
		secs := uint64((l.CPUTime + 999_999_999) / 1_000_000_000)
		// SIGXCPU at the soft limit, SIGKILL a second later.
		if err := unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: secs, Max: secs + 1}); err != nil {
			return fmt.Errorf("limiting cpu time to %ds: %w", secs, err)
		}
	}
	if l.Memory > 0 {
		if err := set("memory", unix.RLIMIT_DATA, uint64(l.Memory)); err != nil {
			return err
		}
	}
	return set("core dumps", unix.RLIMIT_CORE, 0)
}

// dropCaps removes every capability from every thread of the shim, and
// from what it executes, also when the command runs as uid 0 (Switchboard
// run as root). Capabilities are per thread, so each call goes to all of
// them through psx (which go-landlock uses for the same reason).
func dropCaps() error {
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if _, _, errno := psx.Syscall3(unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, uintptr(c), 0); errno != 0 && errno != unix.EINVAL {
			return fmt.Errorf("dropping capability %d: %w", c, errno)
		}
	}
	// SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_NO_CAP_AMBIENT_RAISE,
	// each with its lock bit (linux/securebits.h): executing as uid 0
	// grants nothing back.
	const secbits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<6 | 1<<7
	if _, _, errno := psx.Syscall3(unix.SYS_PRCTL, unix.PR_SET_SECUREBITS, secbits, 0); errno != 0 {
		return fmt.Errorf("locking capabilities out: %w", errno)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if _, _, errno := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return fmt.Errorf("dropping capabilities: %w", errno)
	}
	runtime.KeepAlive(&hdr)
	runtime.KeepAlive(&data)
	return nil
}

// under reports whether p is one of dirs or below one.
func under(p string, dirs ...string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
