package config

import (
	"io/fs"
	"syscall"
	"time"
)

// ctime is when st's inode last changed; the kernel sets it, and no
// process can set it back.
func ctime(st fs.FileInfo) time.Time {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return time.Unix(s.Ctim.Sec, s.Ctim.Nsec)
	}
	return st.ModTime()
}

// fileOwner returns st's owner.
func fileOwner(st fs.FileInfo) (int, bool) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid), true
	}
	return 0, false
}
