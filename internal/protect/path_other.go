//go:build !linux

package protect

import (
	"os"
	"path/filepath"
)

// openPath opens p for reading; other systems have no O_PATH.
func openPath(p string) (*os.File, error) { return os.Open(p) }

// fdPath names f by the path it was opened with, its symlinks resolved:
// without /proc a rename since then is not seen (only Linux is
// sandboxed, so only there can a tool rename behind Switchboard's back).
func fdPath(f *os.File) (string, bool) {
	p, err := filepath.EvalSymlinks(f.Name())
	if err != nil {
		return "", false
	}
	p, err = filepath.Abs(p)
	return p, err == nil
}

// identity is not compared here: paths are (see fdPath).
func identity(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
