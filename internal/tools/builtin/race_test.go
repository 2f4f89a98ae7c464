//go:build unix

package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestSymlinkSwapRace swaps a directory inside the root for a symlink to an
// outside directory, over and over, while the file tools use paths through
// it. Whatever the interleaving, nothing outside may be read or written:
// os.Root resolves each component once, atomically, so a check-then-use
// window does not exist.
func TestSymlinkSwapRace(t *testing.T) {
	e := newEnv(t, nil)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(outside, "f.txt"), secretText)
	write(t, filepath.Join(outside, "sub", "g.txt"), secretText)
	d := filepath.Join(e.root, "d")
	write(t, filepath.Join(d, "f.txt"), "inside\n")
	write(t, filepath.Join(d, "sub", "g.txt"), "inside\n")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the swapper; the test stops it and waits for it
		defer wg.Done()
		real := filepath.Join(e.root, "d.real")
		for {
			select {
			case <-stop:
				return
			default:
			}
			// d is a directory, then a symlink out, then a directory again.
			// The tools may recreate a missing d (write_file makes parents),
			// so clear whatever is at d before each step.
			if err := os.Rename(d, real); err != nil {
				t.Error(err)
				return
			}
			for os.Symlink(outside, d) != nil {
				os.RemoveAll(d) // a d that write_file made meanwhile; RemoveAll never follows a link
			}
			for os.Rename(real, d) != nil {
				os.RemoveAll(d)
			}
		}
	}()

	iterations := 400
	if testing.Short() {
		iterations = 100
	}
	var okReads, failedReads, outsideReads int
	for i := range iterations {
		for _, p := range []string{"d/f.txt", "d/sub/g.txt"} {
			res := e.call(t, nameReadFile, map[string]any{"path": p})
			if strings.Contains(res.Text(), "SECRET") {
				t.Fatalf("read_file %s read outside the root: %s", p, res.Text())
			}
			if res.IsError {
				failedReads++
				if strings.Contains(res.Text(), outsideMsg) {
					outsideReads++
				}
			} else {
				okReads++
			}
		}
		for _, args := range []map[string]any{
			{"path": "d/f.txt", "content": "written\n"},
			{"path": "d/sub/g.txt", "content": "written\n"},
			{"path": "d/new.txt", "content": "written\n"},
			{"path": "d/newdir/x.txt", "content": "written\n"},
		} {
			e.call(t, nameWriteFile, args)
		}
		e.call(t, nameEditFile, map[string]any{"path": "d/f.txt", "old_text": "TOP-SECRET", "new_text": "pwned"})
		for _, res := range []string{
			e.call(t, nameListDir, map[string]any{"path": "d", "depth": 2}).Text(),
			e.call(t, nameGrep, map[string]any{"pattern": "SECRET", "path": "d"}).Text(),
		} {
			if strings.Contains(res, "SECRET-CONTENT") {
				t.Fatalf("a walk read outside the root: %s", res)
			}
		}
		if i%50 == 0 {
			assertDirUnchanged(t, outside)
		}
	}
	close(stop)
	wg.Wait()
	assertDirUnchanged(t, outside)
	t.Logf("reads: %d succeeded, %d refused (%d as outside the roots) while the swap raced", okReads, failedReads, outsideReads)
}

// assertDirUnchanged checks that outside holds exactly the two secret files.
func assertDirUnchanged(t *testing.T, outside string) {
	t.Helper()
	var files []string
	err := filepath.WalkDir(outside, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !de.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if string(b) != secretText {
				t.Errorf("%s was written: %q", p, b)
			}
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("files outside the root changed: %v", files)
	}
}

// TestFIFOSwapRace swaps a file between a regular file and a FIFO while the
// tools read it. A FIFO opened for reading blocks until a writer comes, so a
// tool that checked the type and then opened by name could hang; the tools
// open non-blocking and check the opened file instead.
func TestFIFOSwapRace(t *testing.T) {
	e := newEnv(t, nil)
	f := filepath.Join(e.root, "f")
	write(t, f, "regular\n")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the swapper; the test stops it and waits for it
		defer wg.Done()
		tmp := filepath.Join(e.root, "tmp")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var err error
			if i%2 == 0 {
				err = syscall.Mkfifo(tmp, 0o644)
			} else {
				err = os.WriteFile(tmp, []byte("regular\n"), 0o644)
			}
			if err == nil {
				err = os.Rename(tmp, f)
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 300 {
		e.call(t, nameReadFile, map[string]any{"path": "f"})
		e.call(t, nameEditFile, map[string]any{"path": "f", "old_text": "regular", "new_text": "edited"})
		e.call(t, nameGrep, map[string]any{"pattern": "x", "path": "f"})
		e.call(t, nameGrep, map[string]any{"pattern": "x"})
	}
	close(stop)
	wg.Wait()
}
