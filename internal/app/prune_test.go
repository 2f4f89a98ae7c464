package app

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPruneOutputs(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := map[string]time.Duration{
		"out_old.txt":   OutputRetention + time.Hour,
		"out_new.txt":   time.Hour,
		"notes-old.txt": OutputRetention + time.Hour, // not the registry's: left alone
	}
	for name, age := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := pruneOutputs(dir, now)
	if err != nil || n != 1 {
		t.Fatalf("pruneOutputs = %d, %v; want 1, nil", n, err)
	}
	for name, want := range map[string]bool{"out_old.txt": false, "out_new.txt": true, "notes-old.txt": true} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", name, err == nil, want)
		}
	}
	if n, err := pruneOutputs(filepath.Join(dir, "missing"), now); n != 0 || err != nil {
		t.Errorf("missing dir: %d, %v", n, err)
	}
}
