package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPruneOutputs(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := map[string]time.Duration{
		"out_old.txt":                    OutputRetention + time.Hour, // from before outputs were filed by user
		"out_new.txt":                    time.Hour,
		"notes-old.txt":                  OutputRetention + time.Hour, // not the registry's: left alone
		"local/out_old.txt":              OutputRetention + time.Hour,
		"local/out_new.txt":              time.Hour,
		"user-0123abcd/out_old.txt":      OutputRetention + time.Hour,
		"user-0123abcd/out_new.txt":      time.Hour,
		"elsewhere/out_old.txt":          OutputRetention + time.Hour, // not a user's directory: left alone
		"user-0123abcd/deeper/out_x.txt": OutputRetention + time.Hour,
	}
	for name, age := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := pruneOutputs(dir, now)
	if err != nil || n != 3 {
		t.Fatalf("pruneOutputs = %d, %v; want 3, nil", n, err)
	}
	for name := range files {
		want := !strings.HasSuffix(name, "out_old.txt") || strings.HasPrefix(name, "elsewhere/")
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", name, err == nil, want)
		}
	}
	if n, err := pruneOutputs(filepath.Join(dir, "missing"), now); n != 0 || err != nil {
		t.Errorf("missing dir: %d, %v", n, err)
	}
}
