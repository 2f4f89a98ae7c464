package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// pinParents makes every parent of a hidden path that the command could
// rename (one below a Write path) a mount point of its own, by binding it
// onto itself. The kernel refuses to rename or remove a mount point of
// the caller's mount namespace (EBUSY), so the command cannot move the
// hidden data directory or config file from under its cover, nor to a
// path the next sandbox would not hide. Outer parents are bound first,
// recursively, so binds and covers made earlier stay visible below them.
// Moving files between a pinned folder and its parent fails with EXDEV,
// which mv and most tools handle by copying.
func pinParents(sp *spec) error {
	var pins []string
	for _, h := range sp.Hide {
		for d := filepath.Dir(h); d != "/" && d != "."; d = filepath.Dir(d) {
			if under(d, sp.Write...) {
				pins = append(pins, d)
			}
		}
	}
	// Sorted, a parent comes before what lies below it.
	slices.Sort(pins)
	pins = slices.Compact(pins)
	for _, d := range pins {
		var st unix.Stat_t
		if err := unix.Lstat(d, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue // absent or not a directory: nothing to rename
		}
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("pinning %s, a parent of a hidden path: %w", d, err)
		}
	}
	return nil
}
