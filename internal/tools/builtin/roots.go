package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/switchboard-mcp/switchboard/internal/protect"
)

// maxPathLen bounds path arguments; longer ones are refused before any system call.
const maxPathLen = 4096

// root is one directory the file tools may touch.
type root struct {
	dir  string // absolute and clean, as configured
	real string // dir with its symlinks evaluated, to match absolute arguments
}

// roots is the ordered set of allowed directories. The first is the base of
// relative paths. It is immutable after [newRoots].
type roots struct {
	list []root
	// prot is what the file tools may not touch inside the roots; nil
	// protects nothing.
	prot *protect.Set
	// view is prot at the start of one call (see [roots.forCall]); nil
	// on the shared value.
	view *protect.View
}

// forCall returns rs with a snapshot of where the protected files are,
// taken once for this call, so that a walk over many files does not ask
// the kernel about each protected file again per file.
func (rs *roots) forCall() *roots {
	if rs.prot == nil {
		return rs
	}
	c := *rs
	c.view = rs.prot.View()
	return &c
}

// protected is the view checks use: the call's snapshot, or a fresh one
// where a path into the tools forgot [roots.forCall] (slower, never
// unprotected).
func (rs *roots) protected() *protect.View {
	if rs.view != nil || rs.prot == nil {
		return rs.view
	}
	return rs.prot.View()
}

func newRoots(dirs []string, prot *protect.Set) (*roots, error) {
	if len(dirs) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("finding the working directory as the default root: %w", err)
		}
		dirs = []string{wd}
	}
	rs := &roots{prot: prot}
	for _, d := range dirs {
		if d == "" {
			return nil, errors.New("configuring roots: a root is empty; give a directory path")
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("resolving root %q: %w", d, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("checking root %q: %w", d, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("checking root %q: not a directory", d)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("resolving root %q: %w", d, err)
		}
		rs.list = append(rs.list, root{dir: abs, real: real})
	}
	return rs, nil
}

// names lists the roots for error messages.
func (rs *roots) names() string {
	s := make([]string, len(rs.list))
	for i, r := range rs.list {
		s[i] = r.dir
	}
	return strings.Join(s, ", ")
}

// loc is a path argument mapped into one root.
type loc struct {
	root  *root
	rel   string // inside root, OS form, "." for the root itself; never starts with ".." or a separator
	arg   string // the argument as given, for messages
	first bool   // root is the first root, so rel is also how the model may name it
}

// display is how results name the location: relative to the first root, or
// absolute for other roots.
func (l loc) display() string { return displayPath(l.root, l.first, l.rel) }

func displayPath(r *root, first bool, rel string) string {
	if first {
		return rel
	}
	return filepath.Join(r.dir, rel)
}

// outside is the error for a path that leaves every root.
func (rs *roots) outside(arg string) error {
	return fmt.Errorf("path %q is outside the allowed roots (%s); use a path inside one of them", arg, rs.names())
}

// resolve maps a path argument to a root lexically. It does not touch the
// file system: symlinks are resolved later, safely, by [os.Root].
func (rs *roots) resolve(p string) (loc, error) {
	switch {
	case p == "":
		return loc{}, fmt.Errorf("path is empty; give a path relative to %s or an absolute path inside an allowed root", rs.list[0].dir)
	case strings.IndexByte(p, 0) >= 0:
		return loc{}, fmt.Errorf("path %q contains a NUL byte; remove it", p)
	case len(p) > maxPathLen:
		return loc{}, fmt.Errorf("path is %d bytes long, more than the %d allowed; use a shorter path", len(p), maxPathLen)
	}
	c := filepath.Clean(p)
	if filepath.IsAbs(c) {
		for i := range rs.list {
			r := &rs.list[i]
			for _, base := range []string{r.dir, r.real} {
				if rel, ok := within(base, c); ok {
					return loc{root: r, rel: rel, arg: p, first: i == 0}, nil
				}
			}
		}
		return loc{}, rs.outside(p)
	}
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return loc{}, rs.outside(p)
	}
	return loc{root: &rs.list[0], rel: c, arg: p, first: true}, nil
}

// within returns p relative to base when p is base or lies under it.
func within(base, p string) (string, bool) {
	if p == base {
		return ".", true
	}
	prefix := base
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if strings.HasPrefix(p, prefix) {
		return p[len(prefix):], true
	}
	return "", false
}

// open opens l's root. The caller closes it.
func (l loc) open() (*os.Root, error) {
	r, err := os.OpenRoot(l.root.dir)
	if err != nil {
		return nil, fmt.Errorf("opening root %s: %v", l.root.dir, err)
	}
	return r, nil
}

// fsError words a file-system error about l for the model. what is the
// action, e.g. "reading".
func (rs *roots) fsError(what string, l loc, err error) error {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %q: no such file or directory; use list_dir to see what exists", what, l.arg)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s %q: permission denied", what, l.arg)
	case escapes(l):
		return rs.outside(l.arg)
	case errors.As(err, &errno) && errno == syscall.ENAMETOOLONG:
		return fmt.Errorf("%s %q: a path component is too long; use a shorter path", what, l.arg)
	case errors.As(err, &errno) && errno == syscall.ENOTDIR:
		return fmt.Errorf("%s %q: a component of the path is not a directory", what, l.arg)
	case errors.As(err, &errno) && errno == syscall.ELOOP:
		return fmt.Errorf("%s %q: too many levels of symbolic links", what, l.arg)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path in pe is relative to the root; l.arg is what the model knows
	}
	return fmt.Errorf("%s %q: %v", what, l.arg, err)
}

// escapes reports whether resolving l's symlinks leads outside its root. It
// only chooses an error message after [os.Root] refused an operation; the
// refusal itself is what keeps access confined.
func escapes(l loc) bool {
	cur := []string{} // resolved components below the root
	todo := strings.Split(l.rel, string(filepath.Separator))
	for links := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return true
			}
			cur = cur[:len(cur)-1]
			continue
		}
		p := filepath.Join(l.root.dir, filepath.Join(cur...), c)
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			cur = append(cur, c)
			continue
		}
		if links++; links > 40 {
			return false
		}
		t, err := os.Readlink(p)
		if err != nil {
			return false
		}
		if filepath.IsAbs(t) {
			rel, ok := within(l.root.dir, filepath.Clean(t))
			if !ok {
				if rel, ok = within(l.root.real, filepath.Clean(t)); !ok {
					return true
				}
			}
			cur = cur[:0]
			t = rel
		}
		todo = append(strings.Split(t, string(filepath.Separator)), todo...)
	}
	return false
}
