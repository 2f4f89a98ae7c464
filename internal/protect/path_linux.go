package protect

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// openPath opens p without reading it (O_PATH): it works on files and
// directories whatever their permissions, and never blocks on a FIFO.
func openPath(p string) (*os.File, error) {
	return os.OpenFile(p, unix.O_PATH|unix.O_CLOEXEC, 0)
}

// fdPath reads the kernel's path of f's descriptor, which follows renames
// of f and of its parents; ok is false for a deleted file.
func fdPath(f *os.File) (string, bool) {
	// Not f.Fd(): it would put a non-blocking descriptor in blocking mode.
	rc, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	var p string
	cerr := rc.Control(func(fd uintptr) {
		p, err = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
	})
	if cerr != nil || err != nil || !strings.HasPrefix(p, "/") || strings.HasSuffix(p, " (deleted)") {
		return "", false
	}
	return p, true
}

// identity returns the device and inode of st.
func identity(st os.FileInfo) (dev, ino uint64, ok bool) {
	if s, isStat := st.Sys().(*syscall.Stat_t); isStat {
		return s.Dev, s.Ino, true
	}
	return 0, 0, false
}
