//go:build unix

package mcphost

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow is the flag that makes opening a symlink fail.
const openNoFollow = syscall.O_NOFOLLOW

// ownedBySelf returns why the file described by fi may not hold
// Switchboard's OAuth grants, or "": it must belong to the user Switchboard
// runs as, and no other user may write it (nor, for a file, read it).
func ownedBySelf(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Sprintf("it belongs to uid %d, not to uid %d that Switchboard runs as", st.Uid, uid)
	}
	bits := fs.FileMode(0o077)
	if fi.IsDir() {
		bits = 0o022
	}
	if fi.Mode().Perm()&bits != 0 {
		return fmt.Sprintf("its mode %v lets other users at it", fi.Mode().Perm())
	}
	return ""
}
