package builtin

import (
	"crypto/rand"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"
)

// sniffLen is how much of a file decides whether it is text.
const sniffLen = 8 << 10

// kind names a file's type for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// notRegular is the error for a path that names something other than a
// regular file.
func notRegular(l loc, m fs.FileMode) error {
	if m.IsDir() {
		return fmt.Errorf("%q is a directory, not a file; use list_dir to see its entries", l.arg)
	}
	return fmt.Errorf("%q is %s, not a regular file; only regular files can be used", l.arg, kind(m))
}

// openRegular opens rel in r for reading, refusing anything but a regular
// file. It stats first so that devices are never opened, opens non-blocking
// so that a FIFO swapped in meanwhile cannot block, and checks the opened
// file again with fstat.
func openRegular(rs *roots, r *os.Root, l loc, rel string) (*os.File, fs.FileInfo, error) {
	st, err := r.Stat(rel)
	if err != nil {
		return nil, nil, rs.fsError("opening", l, err)
	}
	if !st.Mode().IsRegular() {
		// A protected folder is refused as protected, not described: what
		// lies in Switchboard's own files is not for tools to learn.
		if st.IsDir() {
			if d, err := r.Open(rel); err == nil {
				gerr := rs.guardOpen(l, d)
				d.Close()
				if gerr != nil {
					return nil, nil, gerr
				}
			}
		}
		return nil, nil, notRegular(l, st.Mode())
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, rs.fsError("opening", l, err)
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, rs.fsError("opening", l, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(l, st.Mode())
	}
	if err := rs.guardOpen(l, f); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// isBinary reports whether head, the start of a file, looks binary: it has a
// NUL byte or is not valid UTF-8 (a rune cut by the end of head is allowed).
func isBinary(head []byte, whole bool) bool {
	if slices.Contains(head, 0) {
		return true
	}
	if !whole {
		head = trimPartialRune(head)
	}
	return !utf8.Valid(head)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b, such as
// one cut by a size cap.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// resolveLeaf follows symlinks at the last component of rel, lexically and
// within r's root, so that a write replaces the link's target rather than the
// link. Middle components are left to [os.Root].
func resolveLeaf(rs *roots, r *os.Root, l loc, rel string) (string, error) {
	for range 40 {
		st, err := r.Lstat(rel)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			// A missing or unreadable leaf is not a link to follow: the
			// operation itself reports the error through os.Root.
			return rel, nil //nolint:nilerr // see above
		}
		t, err := r.Readlink(rel)
		if err != nil {
			return "", rs.fsError("reading link", l, err)
		}
		if filepath.IsAbs(t) {
			t = filepath.Clean(t)
			next, ok := within(l.root.dir, t)
			if !ok {
				if next, ok = within(l.root.real, t); !ok {
					return "", rs.outside(l.arg)
				}
			}
			rel = next
			continue
		}
		rel = filepath.Clean(filepath.Join(filepath.Dir(rel), t))
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", rs.outside(l.arg)
		}
	}
	return "", fmt.Errorf("writing %q: too many levels of symbolic links", l.arg)
}

// writeAtomic replaces rel in r with data: it writes a temporary file in the
// same directory and renames it over the target, so readers see the old or
// the new content, never a mix. Parent directories are created. An existing
// file keeps its permissions. It reports whether the file is new.
func writeAtomic(rs *roots, r *os.Root, l loc, data []byte) (created bool, err error) {
	rel, err := resolveLeaf(rs, r, l, l.rel)
	if err != nil {
		return false, err
	}
	if rel == "." {
		return false, notRegular(l, fs.ModeDir)
	}
	mode := fs.FileMode(0o644)
	st, err := r.Lstat(rel)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return false, notRegular(l, st.Mode())
	case err == nil:
		mode = st.Mode().Perm()
	case os.IsNotExist(err):
		created = true
	default:
		return false, rs.fsError("writing", l, err)
	}
	// Before anything is created: the target, its parents and what it
	// would replace must not be Switchboard's own files.
	if err := rs.guardChange(r, l, rel); err != nil {
		return false, err
	}
	dir := filepath.Dir(rel)
	if dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return false, rs.fsError("creating parent directories of", l, err)
		}
	}
	tmp := filepath.Join(dir, "."+filepath.Base(rel)+".tmp-"+rand.Text()[:12])
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, rs.fsError("writing", l, err)
	}
	// The temporary file is where the write lands: name its directory by
	// descriptor, so a parent swapped since the check above is caught.
	if perr := rs.guardTemp(f, rel); perr != nil {
		f.Close()
		_ = r.Remove(tmp) // best effort: nothing was written
		return false, protectedError(l, perr)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, rel)
	}
	if err != nil {
		_ = r.Remove(tmp) // best effort: the write already failed
		return false, rs.fsError("writing", l, err)
	}
	return created, nil
}

// readDir lists rel in r, sorted by name, without following a FIFO or
// blocking on one. A protected directory is refused with an error
// matching [protect.ErrProtected].
func readDir(rs *roots, r *os.Root, rel string) ([]fs.DirEntry, error) {
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: rel, Err: syscall.ENOTDIR}
	}
	if err := rs.protected().CheckFile(f, false); err != nil {
		return nil, err
	}
	es, err := f.ReadDir(-1)
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return es, err
}
