package app

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// OutputRetention is how long the full text of oversized tool results is
// kept for read_tool_output. Models read such pages within the turn that
// produced them; a week leaves room for a conversation picked up later.
const OutputRetention = 7 * 24 * time.Hour

// pruneOutputs deletes stored tool outputs older than OutputRetention, so
// the data directory does not grow without bound. Outputs are filed by
// user (tools.UserOutputDir: "local" and "user-..." directories, and files
// directly in dir from before that); it touches only files the registry
// writes (out_*.txt) and reports how many it removed.
func pruneOutputs(dir string, now time.Time) (int, error) {
	n, err := pruneDir(dir, now)
	if err != nil {
		return n, err
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		// Only real directories (a symlink is not followed out of dir).
		if !e.IsDir() || name != "local" && !strings.HasPrefix(name, "user-") {
			continue
		}
		m, err := pruneDir(filepath.Join(dir, name), now)
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// pruneDir deletes the expired out_*.txt files directly inside dir.
func pruneDir(dir string, now time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, "out_") || !strings.HasSuffix(name, ".txt") {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < OutputRetention {
			continue
		}
		if os.Remove(filepath.Join(dir, name)) == nil {
			n++
		}
	}
	return n, nil
}
