package sandbox

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// A descriptor open in Switchboard without close-on-exec (one its own
// parent passed it: a secret file, a directory such as /run) is passed on
// by every exec. Inside a sandbox it would be a way out: the command reads
// through it, or walks below it with openat or /proc/self/fd/N, where
// Landlock and the mounts do not reach. So Switchboard marks what it
// inherited close-on-exec when it starts ([CloseInheritedOnExec]), and the
// shim closes anything left before it confines (closeInherited) and marks
// the rest close-on-exec before the command runs (closeOnExec).

// CloseInheritedOnExec marks every descriptor above 2 of this process
// close-on-exec, so that no child started later gets one it did not ask
// for (os/exec passes ExtraFiles and the standard streams only, but
// descriptors this process inherited without close-on-exec go through
// every exec). Call it first thing in main; descriptors the Go runtime
// opens are close-on-exec already.
func CloseInheritedOnExec() error {
	return closeOnExec()
}

// closeOnExec marks every descriptor above 2 close-on-exec: close_range(2)
// where the kernel has it (5.11), else each one listed in /proc/self/fd.
func closeOnExec() error {
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	fds, err := openFDs()
	if err != nil {
		return fmt.Errorf("marking descriptors close-on-exec: %w", err)
	}
	for _, fd := range fds {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return fmt.Errorf("marking descriptor %d close-on-exec: %w", fd, err)
		}
	}
	return nil
}

// closeInherited closes every descriptor above 2 that the shim inherited,
// except those the parent handed over in sp. A descriptor that crossed
// exec has no close-on-exec flag (that is how it crossed), while the Go
// runtime opens all of its own with the flag, so the flag tells them apart
// and the runtime's are left alone.
func closeInherited(sp *spec) error {
	fds, err := openFDs()
	if err != nil {
		return fmt.Errorf("closing inherited descriptors: %w", err)
	}
	for _, fd := range fds {
		if slices.ContainsFunc(sp.Mounts, func(h handed) bool { return h.FD == fd }) {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // closed meanwhile (the listing's own), or the runtime's
		}
		if err := unix.Close(fd); err != nil {
			return fmt.Errorf("closing inherited descriptor %d: %w", fd, err)
		}
	}
	return nil
}

// openFDs lists the descriptors above 2 open in this process.
func openFDs() ([]int, error) {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	if err != nil {
		return nil, err
	}
	var out []int
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			out = append(out, fd)
		}
	}
	return out, nil
}

// sameID reports whether st is the object ids pin path to; a path not
// pinned (it did not exist) passes.
func sameID(ids []fileID, path string, st *unix.Stat_t) bool {
	for _, id := range ids {
		if id.Path == path {
			return st.Dev == id.Dev && st.Ino == id.Ino
		}
	}
	return true
}

// checkIDs fails when a policy path names another object than the parent
// pinned: the last look before Landlock takes the paths by name.
func checkIDs(ids []fileID) error {
	for _, id := range ids {
		var st unix.Stat_t
		if err := unix.Lstat(id.Path, &st); err != nil {
			continue // gone: it grants nothing
		}
		if st.Dev != id.Dev || st.Ino != id.Ino {
			return fmt.Errorf("sandbox path %s was replaced while the sandbox started: refusing to confine the command to it", id.Path)
		}
	}
	return nil
}
