package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// A confined process may change anything below its write paths. If a
// policy path lies there, or is looked up again by name at the next start,
// the process can replace it between two starts (a symlink to /, say) and
// widen its own policy. So the paths are resolved once, by [Policy.Pin],
// and every start checks that each still names the same file or directory.

// pinned is one read or write path as [Policy.Pin] found it.
type pinned struct {
	path string      // absolute, symlinks resolved when pinned
	info os.FileInfo // what it named then; nil when it did not exist
}

// pinSet is a policy's paths resolved once. It is immutable once built and
// shared by every copy of the policy.
type pinSet struct {
	// read and write are the policy's lists as given, so that a policy
	// whose lists changed after Pin is resolved afresh.
	read, write []string
	rd, wr      []pinned
	// err is why the policy is refused, whatever the files look like.
	err error
}

// Pin resolves p's read and write paths now and keeps what each names
// (device and inode), so that [Command] later starts the command on these
// objects only: a start fails when one of them was replaced since, rather
// than following the path to whatever it names then. Call it when the
// configuration is applied, before the confined process first runs.
//
// A read path that equals a write path is dropped (the write path already
// allows reading), and so is a [SystemRead] path below one (a root of /).
// Any other read path that lies strictly below a write path is refused: the
// confined process could replace it. [Command] returns that
// error at each start, and [Policy.Verify] reports it. Pin does not change
// Read or Write; changing them afterwards undoes the pinning (the next
// start resolves them again). A nil p is left alone.
func (p *Policy) Pin() {
	if p == nil {
		return
	}
	p.pins = pin(p.Read, p.Write)
}

// Verify reports why [Command] would refuse to start p now: a read path
// below a write path, or a path that names another object than when p was
// pinned. It is nil for an unconfined or unpinned policy.
func (p *Policy) Verify() error {
	if p == nil || !p.Confine || p.pins == nil {
		return nil
	}
	return p.pinned().verify()
}

// pinned returns p's pins, resolving them now when p was not pinned or its
// lists changed since.
func (p *Policy) pinned() *pinSet {
	if ps := p.pins; ps != nil && slices.Equal(ps.read, p.Read) && slices.Equal(ps.write, p.Write) {
		return ps
	}
	return pin(p.Read, p.Write)
}

func pin(read, write []string) *pinSet {
	ps := &pinSet{read: slices.Clone(read), write: slices.Clone(write)}
	for _, w := range write {
		ps.wr = append(ps.wr, pinPath(w))
	}
	var errs []error
	// Where the process can write, as named and as resolved.
	var writable []string
	for i, w := range write {
		if abs, err := filepath.Abs(w); err == nil {
			writable = append(writable, abs)
		}
		writable = append(writable, ps.wr[i].path)
	}
	for _, l := range []struct {
		kind  string
		paths []string
	}{{"read", read}, {"write", write}} {
		for _, p := range l.paths {
			if l.kind == "read" && slices.Contains(SystemRead(), p) {
				continue // the system's own links (/bin -> usr/bin)
			}
			if link, w := plantedLink(p, writable); link != "" {
				errs = append(errs, fmt.Errorf("sandbox %s path %s leads through the symlink %s, which lies inside the write path %s: "+
					"the confined process could have planted it to widen its own policy; refusing it (name the real directory in "+
					"the configuration, or remove the symlink)", l.kind, p, link, w))
			}
		}
	}
	for _, r := range read {
		pr := pinPath(r)
		if i := slices.IndexFunc(ps.wr, func(w pinned) bool { return w.path == pr.path }); i >= 0 {
			continue // readable through the write path
		}
		for _, w := range ps.wr {
			if within(pr.path, w.path) && slices.Contains(SystemRead(), r) {
				pr.path = "" // a root holding the system: the write path gives it
				break
			}
			if within(pr.path, w.path) {
				errs = append(errs, fmt.Errorf("sandbox read path %s lies inside the write path %s: the confined process could replace it "+
					"(with a symlink to /, say) and so widen its own policy at the next start; remove it from the read paths "+
					"(the write path already lets the process read it) or give a directory outside the write paths", r, w.path))
				break
			}
		}
		if pr.path != "" {
			ps.rd = append(ps.rd, pr)
		}
	}
	ps.err = errors.Join(errs...)
	return ps
}

// plantedLink returns a symlink on the way to p (p itself or a directory
// above it) that lies strictly inside one of writable, and that write path.
func plantedLink(p string, writable []string) (link, dir string) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", ""
	}
	for c := abs; c != "/" && c != "."; c = filepath.Dir(c) {
		fi, err := os.Lstat(c)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		for _, w := range writable {
			if within(c, w) {
				return c, w
			}
		}
	}
	return "", ""
}

func pinPath(p string) pinned {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	p = filepath.Clean(p)
	info, err := os.Stat(p)
	if err != nil {
		info = nil
	}
	return pinned{path: p, info: info}
}

// verify checks that every pinned path still names what it named.
func (ps *pinSet) verify() error {
	if ps.err != nil {
		return ps.err
	}
	var errs []error
	for _, l := range []struct {
		kind  string
		paths []pinned
	}{{"read", ps.rd}, {"write", ps.wr}} {
		for _, pp := range l.paths {
			if err := pp.check(l.kind); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// check reports whether pp still names the object it was pinned to. A path
// gone since grants nothing and passes; one that did not exist then passes
// only when no symlink leads to it now.
func (pp pinned) check(kind string) error {
	now, err := os.Lstat(pp.path)
	switch {
	case err != nil:
		return nil //nolint:nilerr // a path gone since it was pinned grants nothing
	case pp.info == nil:
		if r, err := filepath.EvalSymlinks(pp.path); err != nil || r != pp.path {
			return fmt.Errorf("sandbox %s path %s did not exist when the configuration was loaded and now leads elsewhere (%s): "+
				"refusing to start, as the confined process may have planted it; remove it, or reload the configuration if you made it", kind, pp.path, r)
		}
		return nil
	case !os.SameFile(pp.info, now):
		return fmt.Errorf("sandbox %s path %s is no longer the %s it was when the configuration was loaded (it was replaced or renamed, "+
			"perhaps by a symlink the confined process planted): refusing to start; put it back, or reload the configuration if the change was yours",
			kind, pp.path, kindOf(pp.info))
	}
	return nil
}

func kindOf(fi os.FileInfo) string {
	if fi.IsDir() {
		return "directory"
	}
	return "file"
}

// readPaths and writePaths are the resolved paths, in the policy's order.
func (ps *pinSet) readPaths() []string  { return pathsOf(ps.rd) }
func (ps *pinSet) writePaths() []string { return pathsOf(ps.wr) }

func pathsOf(pp []pinned) []string {
	out := make([]string, len(pp))
	for i, p := range pp {
		out[i] = p.path
	}
	return out
}

// within reports whether p lies strictly below dir.
func within(p, dir string) bool {
	return p != dir && (dir == "/" || len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir)
}
