package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// TestPinReadUnderWrite: a read path inside a write path is refused, with
// the reason; one equal to a write path is fine.
func TestPinReadUnderWrite(t *testing.T) {
	w := t.TempDir()
	sub := filepath.Join(w, "lib")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Policy{Confine: true, Read: []string{w}, Write: []string{w}}
	p.Pin()
	if err := p.Verify(); err != nil {
		t.Errorf("a read path equal to a write path: %v", err)
	}
	p = &sandbox.Policy{Confine: true, Read: []string{sub}, Write: []string{w}}
	p.Pin()
	err := p.Verify()
	if err == nil || !strings.Contains(err.Error(), "lies inside the write path") || !strings.Contains(err.Error(), "widen its own policy") {
		t.Fatalf("Verify = %v; want the read path refused with the reason", err)
	}
	if _, cerr := sandbox.Command(p, w, nil, "/bin/true"); cerr == nil && sandbox.Check().Available {
		t.Error("Command started a policy with a read path inside a write path")
	}
	// The system's paths below a write path (a root of /) are left to it.
	p = &sandbox.Policy{Confine: true, Read: sandbox.SystemRead(), Write: []string{"/"}}
	p.Pin()
	if err := p.Verify(); err != nil {
		t.Errorf("system read paths below a write path of /: %v", err)
	}
}

// TestPinReplacedPath: a policy path replaced by a symlink to / after Pin
// makes Command refuse; putting it back makes it start again.
func TestPinReplacedPath(t *testing.T) {
	base := t.TempDir()
	w, ro := filepath.Join(base, "w"), filepath.Join(base, "ro")
	for _, d := range []string{w, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := confined(t, w)
	p.Read = append(p.Read, ro)
	p.Pin()
	if out, code := sh(t, p, w, "ls "+ro); code != 0 {
		t.Fatalf("before the swap: exit %d %s", code, out)
	}
	if err := os.Rename(ro, ro+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", ro); err != nil {
		t.Fatal(err)
	}
	_, err := sandbox.Command(p, w, nil, "/bin/sh", "-c", "ls "+ro+"/root")
	if err == nil || !strings.Contains(err.Error(), "no longer the directory") || !strings.Contains(err.Error(), ro) {
		t.Fatalf("after the swap Command = %v; want a refusal naming %s", err, ro)
	}
	if verr := p.Verify(); verr == nil {
		t.Error("Verify passed a swapped path")
	}
	// A path replaced by a new directory (another inode) is refused too.
	if err := os.Remove(ro); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.Command(p, w, nil, "/bin/true"); err == nil {
		t.Error("a path replaced by another directory was accepted")
	}
	_ = os.Remove(ro)
	if err := os.Rename(ro+".away", ro); err != nil {
		t.Fatal(err)
	}
	if out, code := sh(t, p, w, "ls "+ro); code != 0 {
		t.Errorf("after putting it back: exit %d %s", code, out)
	}
}

// TestPinLinkInsideWritePath: a configuration loaded afresh (Switchboard
// restarted) refuses a policy path that leads through a symlink inside a
// write path, which the confined process may have planted; a symlink
// elsewhere is followed as before.
func TestPinLinkInsideWritePath(t *testing.T) {
	base := t.TempDir()
	w := filepath.Join(base, "w")
	if err := os.Mkdir(w, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(w, "out")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*sandbox.Policy{
		{Confine: true, Write: []string{w, filepath.Join(w, "out")}},
		{Confine: true, Read: []string{filepath.Join(w, "out", "etc")}, Write: []string{w}},
	} {
		p.Pin()
		if err := p.Verify(); err == nil || !strings.Contains(err.Error(), "leads through the symlink "+filepath.Join(w, "out")) {
			t.Errorf("%v / %v: Verify = %v; want the planted symlink named", p.Read, p.Write, err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(w, link); err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Policy{Confine: true, Write: []string{link}}
	p.Pin()
	if err := p.Verify(); err != nil {
		t.Errorf("a write path named through a symlink outside the write paths: %v", err)
	}
}
