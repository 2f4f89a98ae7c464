package sqlstore

import (
	"os"
	"syscall"
)

// reserve allocates f's first size bytes on disk, so that writes there
// cannot fail for want of space.
func reserve(f *os.File, size int) error {
	return syscall.Fallocate(int(f.Fd()), 0, 0, int64(size))
}

// mapShared maps f's first size bytes for reading and writing, shared
// with the file: what is copied there is in the page cache at once.
func mapShared(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func unmap(m []byte) error { return syscall.Munmap(m) }
