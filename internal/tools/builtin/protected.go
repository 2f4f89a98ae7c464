package builtin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/internal/protect"
)

// The file tools keep off Switchboard's own files (its data directory,
// its config files, the record of trusted configs) by asking
// [protect.Set] about what they actually opened, by descriptor: a symlink,
// a hard link or a parent renamed since the path was resolved leads to the
// same refusal. Reads check the opened file or directory; changes check
// the deepest existing part of the target before anything is created, and
// the file that would be replaced.

// protectedError words a refusal for the model.
func protectedError(l loc, err error) error {
	return fmt.Errorf("refused %q: %w; only the person running Switchboard may read or change its own files", l.arg, err)
}

// guardOpen refuses f, opened for l, when it is or lies in a protected
// object.
func (rs *roots) guardOpen(l loc, f *os.File) error {
	if err := rs.protected().CheckFile(f, false); err != nil {
		if errors.Is(err, protect.ErrProtected) {
			return protectedError(l, err)
		}
		return rs.fsError("opening", l, err)
	}
	return nil
}

// guardChange refuses to create or replace rel in r when rel is, lies in
// or contains a protected object. The part of rel that does not exist yet
// is named below the deepest part that does, which is opened (O_PATH, so
// nothing is read) and named by its descriptor.
func (rs *roots) guardChange(r *os.Root, l loc, rel string) error {
	if rs.prot == nil {
		return nil
	}
	rest := ""
	for p := rel; ; p = filepath.Dir(p) {
		f, err := r.OpenFile(p, openPathFlag, 0)
		if err == nil {
			err = rs.checkBelow(f, rest)
			f.Close()
			if err != nil {
				if errors.Is(err, protect.ErrProtected) {
					return protectedError(l, err)
				}
				return rs.fsError("writing", l, err)
			}
			return nil
		}
		if p == "." {
			return rs.fsError("writing", l, err)
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// checkBelow checks f, or the path rest below f when rest is not empty.
func (rs *roots) checkBelow(f *os.File, rest string) error {
	if rest == "" {
		return rs.protected().CheckFile(f, true)
	}
	base, err := protect.Path(f)
	if err != nil {
		return err
	}
	return rs.protected().Check(filepath.Join(base, rest), true)
}

// guardTemp checks where a write's temporary file f landed: its directory,
// by descriptor, with the target's name.
func (rs *roots) guardTemp(f *os.File, rel string) error {
	if rs.prot == nil {
		return nil
	}
	p, err := protect.Path(f)
	if err != nil {
		return err
	}
	return rs.protected().Check(filepath.Join(filepath.Dir(p), filepath.Base(rel)), true)
}
