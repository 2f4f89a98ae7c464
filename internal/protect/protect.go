package protect

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Item is one protected object as the configuration names it.
type Item struct {
	// Path is the object's path; relative paths are made absolute
	// against the working directory. It need not exist: a config file
	// Switchboard would discover is protected before it is created.
	Path string
	// What names the object in errors, e.g. "Switchboard's data directory".
	What string
}

// Set is the protected objects. Build it with [New]; it is safe for
// concurrent use, and [Set.Close] releases its handles. A nil *Set
// protects nothing.
type Set struct {
	// mu guards the handles of objs: an object absent at New (the data
	// directory before the first database) is adopted when it appears.
	mu   sync.Mutex
	objs []object // the list is fixed after New
}

type object struct {
	path string   // absolute and clean, as configured, symlinks resolved when it existed
	what string   // for messages
	h    *os.File // handle on the object since it was first seen; nil before
	dev  uint64   // identity of h, when known (see identity)
	ino  uint64
	idOK bool
}

// ProtectedError is what [Set.Check] returns: path is, lies below or (for
// a change) contains a protected object.
type ProtectedError struct {
	Path string // the path refused, as the kernel names it
	What string // the protected object, e.g. "Switchboard's data directory"
	Obj  string // where that object is now
}

func (e *ProtectedError) Error() string {
	switch {
	case e.Path == e.Obj:
		return fmt.Sprintf("%s is %s, which is out of reach of tools", e.Path, e.What)
	case under(e.Path, e.Obj):
		return fmt.Sprintf("%s lies inside %s (%s), which is out of reach of tools", e.Path, e.What, e.Obj)
	}
	return fmt.Sprintf("%s contains %s (%s), which is out of reach of tools: it may not be replaced, moved or deleted", e.Path, e.What, e.Obj)
}

// ErrProtected matches every [ProtectedError] with errors.Is.
var ErrProtected = errors.New("protected by Switchboard")

// Is makes errors.Is(err, ErrProtected) true.
func (e *ProtectedError) Is(target error) bool { return target == ErrProtected }

// New opens a handle on every item that exists, so that it is known by
// identity from now on. Items with an empty Path are skipped. It fails
// only when a path cannot be made absolute.
func New(items []Item) (*Set, error) {
	s := &Set{}
	for _, it := range items {
		if it.Path == "" {
			continue
		}
		p, err := filepath.Abs(it.Path)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("protecting %s: %w", it.Path, err)
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		o := object{path: p, what: it.What}
		o.adopt()
		s.objs = append(s.objs, o)
	}
	return s, nil
}

// Close releases the handles. It is idempotent.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.objs {
		if h := s.objs[i].h; h != nil {
			_ = h.Close() // O_PATH handles: nothing to flush
			s.objs[i].h = nil
		}
	}
	s.objs = nil
	return nil
}

// adopt opens a handle on o when it has none and its path exists now.
func (o *object) adopt() {
	if o.h != nil {
		return
	}
	h, err := openPath(o.path)
	if err != nil {
		return
	}
	st, err := h.Stat()
	if err != nil {
		h.Close()
		return
	}
	o.h = h
	o.dev, o.ino, o.idOK = identity(st)
}

// currentLocked returns where o is now: its configured path and, when
// its handle's kernel path differs (a parent was renamed), that path too.
// The caller holds s.mu.
func (o *object) currentLocked() []string {
	o.adopt()
	out := []string{o.path}
	if o.h != nil {
		if p, ok := fdPath(o.h); ok && p != o.path {
			out = append(out, p)
		}
	}
	return out
}

// Paths returns every path to hide now: each object's configured path and
// its current location when it moved, absolute, sorted and without
// duplicates. Paths that do not exist now are left out (a sandbox would
// have to create something there to cover it, and an empty directory
// where a config file belongs would break discovery). It is cheap (a
// readlink and a stat per object) and meant to be called at every
// sandbox start.
func (s *Set) Paths() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i := range s.objs {
		for _, p := range s.objs[i].currentLocked() {
			if _, err := os.Lstat(p); err == nil {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// View is where the protected objects are at one moment: a snapshot for
// one tool call, so that a walk over many files asks the kernel about
// each object once. Objects cannot move under a running call by a tool's
// doing (the sandboxes pin their parents, the file tools rename only
// regular files); a View is still meant to be short-lived. A nil *View
// protects nothing.
type View struct {
	objs []viewObj
}

type viewObj struct {
	what     string
	paths    []string // configured path, and the current one when it moved
	dev, ino uint64
	known    bool // dev and ino are set
}

// View returns a snapshot of where the objects are now.
func (s *Set) View() *View {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := &View{objs: make([]viewObj, 0, len(s.objs))}
	for i := range s.objs {
		o := &s.objs[i]
		cur := o.currentLocked()
		v.objs = append(v.objs, viewObj{what: o.what, paths: cur, dev: o.dev, ino: o.ino, known: o.h != nil && o.idOK})
	}
	return v
}

// Check is [View.Check] on a fresh view.
func (s *Set) Check(path string, change bool) error { return s.View().Check(path, change) }

// CheckFile is [View.CheckFile] on a fresh view.
func (s *Set) CheckFile(f *os.File, change bool) error { return s.View().CheckFile(f, change) }

// Check reports, as a [*ProtectedError], whether a tool may not use path,
// an absolute path as the kernel names it (see [Path]): path is a
// protected object or lies below one, or, when change is set, it contains
// one (replacing, moving or deleting it would move the object).
func (v *View) Check(path string, change bool) error {
	if v == nil {
		return nil
	}
	path = filepath.Clean(path)
	for i := range v.objs {
		o := &v.objs[i]
		for _, c := range o.paths {
			if path == c || under(path, c) || change && under(c, path) {
				return &ProtectedError{Path: path, What: o.what, Obj: c}
			}
		}
	}
	return nil
}

// CheckFile is [View.Check] for an open file: it names f by the kernel's
// path of the descriptor, so a symlink or a rename since f was opened by
// path does not matter, and also refuses f when it is one of the
// protected objects by identity (a hard link to a protected file).
func (v *View) CheckFile(f *os.File, change bool) error {
	if v == nil {
		return nil
	}
	p, err := Path(f)
	if err != nil {
		return err
	}
	if err := v.Check(p, change); err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("checking %s: %w", p, err)
	}
	dev, ino, ok := identity(st)
	for i := range v.objs {
		if o := &v.objs[i]; ok && o.known && o.dev == dev && o.ino == ino {
			return &ProtectedError{Path: p, What: o.what, Obj: o.paths[len(o.paths)-1]}
		}
	}
	return nil
}

// Path returns where the kernel says f is now, absolute with symlinks
// resolved. It fails when f was deleted.
func Path(f *os.File) (string, error) {
	p, ok := fdPath(f)
	if !ok {
		return "", fmt.Errorf("finding where %s is: it was deleted or cannot be named", f.Name())
	}
	return p, nil
}

// under reports whether p lies strictly below dir.
func under(p, dir string) bool {
	if dir == "/" {
		return p != "/" && strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}
