package sqlstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// otherPaths lists the journal files beside this one's: other
// processes', live or dead.
func (j *journal) otherPaths() ([]string, error) {
	dir, base := filepath.Split(j.prefix)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing audit journals: %w", err)
	}
	var paths []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || !e.Type().IsRegular() {
			continue
		}
		if p := filepath.Join(dir, name); p != j.paths[0] && p != j.paths[1] {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// parseJournal returns the records of a journal's content, skipping
// what is not a whole line (a write cut short by a crash).
func parseJournal(data []byte) []store.AuditRecord {
	var out []store.AuditRecord
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		// The reserved part of a file past its last line reads as zeros.
		line = bytes.TrimRight(line, "\x00")
		if len(line) == 0 {
			continue
		}
		if r, ok := decodeLine(line); ok {
			out = append(out, r)
		}
	}
	return out
}

// othersBegun returns the records in other processes' journals: calls
// running there, calls whose finish is committed since (the caller
// checks the table), and the calls of dead processes that no start has
// recorded as interrupted yet.
func (j *journal) othersBegun() ([]store.AuditRecord, error) {
	paths, err := j.otherPaths()
	if err != nil {
		return nil, err
	}
	var out []store.AuditRecord
	for _, p := range paths {
		data, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // finished with, or rewritten, meanwhile
		case err != nil:
			return nil, fmt.Errorf("reading audit journal %s: %w", p, err)
		}
		out = append(out, parseJournal(data)...)
	}
	return out, nil
}

// recoverDead hands the records of each dead process's journal to
// interrupt, with that process's instance, and removes the journal once
// interrupt has recorded them. A journal is dead when its lock can be
// taken: a live process holds both of its files' locks for its life.
func (j *journal) recoverDead(interrupt func(instance string, recs []store.AuditRecord) (int64, error)) (int64, error) {
	paths, err := j.otherPaths()
	if err != nil {
		return 0, err
	}
	var total int64
	for _, p := range paths {
		n, err := j.recoverOne(p, interrupt)
		if err != nil {
			return total, fmt.Errorf("recovering audit journal %s: %w", p, err)
		}
		total += n
	}
	return total, nil
}

func (j *journal) recoverOne(path string, interrupt func(string, []store.AuditRecord) (int64, error)) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if ok, err := tryLock(f); err != nil || !ok {
		return 0, err // live: its process holds the lock
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return 0, err
	}
	name := strings.TrimPrefix(filepath.Base(path), filepath.Base(j.prefix))
	instance := strings.TrimSuffix(name, filepath.Ext(name))
	n, err := interrupt(instance, parseJournal(data))
	if err != nil {
		return 0, err
	}
	return n, os.Remove(path)
}
