package protect_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/protect"
)

// layout makes proj/state/data (a directory with a database) and
// proj/etc/sb.yaml below a temporary directory, with symlinks resolved.
func layout(t *testing.T) (proj, data, cfg string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj = filepath.Join(dir, "proj")
	data = filepath.Join(proj, "state", "data")
	cfg = filepath.Join(proj, "etc", "sb.yaml")
	for _, d := range []string{data, filepath.Dir(cfg)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(data, "switchboard.db"), cfg} {
		if err := os.WriteFile(f, []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return proj, data, cfg
}

func newSet(t *testing.T, items ...protect.Item) *protect.Set {
	t.Helper()
	s, err := protect.New(items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCheckRefusesObjectsAndWhatIsBelowThem(t *testing.T) {
	proj, data, cfg := layout(t)
	absent := filepath.Join(proj, "switchboard.yaml")
	s := newSet(t, protect.Item{Path: data, What: "the data directory"}, protect.Item{Path: cfg, What: "the config file"},
		protect.Item{Path: absent, What: "a config file Switchboard would load"})
	tests := []struct {
		name   string
		path   string
		change bool
		refuse bool
	}{
		{"the data directory", data, false, true},
		{"a file in it", filepath.Join(data, "switchboard.db"), false, true},
		{"a file not yet in it", filepath.Join(data, "new", "x"), true, true},
		{"the config", cfg, false, true},
		{"a config not yet written", absent, true, true},
		{"a sibling with a common prefix", data + "2", false, false},
		{"reading a parent", filepath.Join(proj, "state"), false, false},
		{"changing a parent", filepath.Join(proj, "state"), true, true},
		{"changing the project", proj, true, true},
		{"another file", filepath.Join(proj, "etc", "other.yaml"), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Check(tt.path, tt.change)
			if got := errors.Is(err, protect.ErrProtected); got != tt.refuse {
				t.Errorf("Check(%s, %v) = %v, want refused %v", tt.path, tt.change, err, tt.refuse)
			}
		})
	}
}

// A rename of a parent moves the objects; the set still knows where they
// are, by their handles.
func TestRenamedParentsAreFollowed(t *testing.T) {
	proj, data, cfg := layout(t)
	s := newSet(t, protect.Item{Path: data, What: "the data directory"}, protect.Item{Path: cfg, What: "the config file"})
	if err := os.Rename(filepath.Join(proj, "state"), filepath.Join(proj, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(proj, "etc"), filepath.Join(proj, "etc2")); err != nil {
		t.Fatal(err)
	}
	movedData := filepath.Join(proj, "moved", "data")
	movedCfg := filepath.Join(proj, "etc2", "sb.yaml")
	// The old paths are gone: a sandbox would have to create something
	// there to cover them, so they are left out.
	if diff := cmp.Diff([]string{movedCfg, movedData}, s.Paths()); diff != "" {
		t.Errorf("Paths() mismatch (-want +got):\n%s", diff)
	}
	for _, p := range []string{filepath.Join(movedData, "switchboard.db"), movedCfg} {
		if err := s.Check(p, false); !errors.Is(err, protect.ErrProtected) {
			t.Errorf("Check(%s) after the rename = %v, want refused", p, err)
		}
	}
}

// CheckFile names an open file by its descriptor: a symlink to the config
// and a hard link to it are both refused.
func TestCheckFileByIdentity(t *testing.T) {
	proj, data, cfg := layout(t)
	s := newSet(t, protect.Item{Path: data, What: "the data directory"}, protect.Item{Path: cfg, What: "the config file"})
	link := filepath.Join(proj, "link.yaml")
	if err := os.Symlink(cfg, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(proj, "hard.yaml")
	if err := os.Link(cfg, hard); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(proj, "other.txt")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path   string
		refuse bool
	}{{link, true}, {hard, true}, {filepath.Join(data, "switchboard.db"), true}, {other, false}} {
		f, err := os.Open(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		err = s.CheckFile(f, false)
		f.Close()
		if got := errors.Is(err, protect.ErrProtected); got != tt.refuse {
			t.Errorf("CheckFile(%s) = %v, want refused %v", tt.path, err, tt.refuse)
		}
	}
}

func TestNilSetProtectsNothing(t *testing.T) {
	var s *protect.Set
	if err := s.Check("/x", true); err != nil || s.Paths() != nil || s.Close() != nil {
		t.Errorf("nil set: Check %v, Paths %v", err, s.Paths())
	}
}

// An object that did not exist when the set was made (the data directory
// before the first database) is adopted when it appears, and followed
// from then on.
func TestAbsentObjectAdoptedLater(t *testing.T) {
	proj, _, _ := layout(t)
	later := filepath.Join(proj, "late", "data")
	s := newSet(t, protect.Item{Path: later, What: "the data directory"})
	if got := s.Paths(); len(got) != 0 {
		t.Errorf("Paths() of an absent object = %v, want none", got)
	}
	if err := s.Check(filepath.Join(later, "x"), true); !errors.Is(err, protect.ErrProtected) {
		t.Errorf("writing below the absent data directory: %v, want refused", err)
	}
	if err := os.MkdirAll(later, 0o700); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{later}, s.Paths()); diff != "" {
		t.Errorf("Paths() mismatch (-want +got):\n%s", diff)
	}
	if err := os.Rename(filepath.Join(proj, "late"), filepath.Join(proj, "later")); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(proj, "later", "data")
	if diff := cmp.Diff([]string{moved}, s.Paths()); diff != "" {
		t.Errorf("Paths() after the rename mismatch (-want +got):\n%s", diff)
	}
}
