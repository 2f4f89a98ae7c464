package sqlstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// otherNames lists the journal files beside this one's: other
// processes', live or dead.
func (j *journal) otherNames() ([]string, error) {
	d, err := j.dir.Open(".")
	if err != nil {
		return nil, fmt.Errorf("listing audit journals: %w", err)
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("listing audit journals: %w", err)
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, j.base) && e.Type().IsRegular() && name != j.names[0] && name != j.names[1] {
			names = append(names, name)
		}
	}
	return names, nil
}

// readFile reads the journal file name.
func (j *journal) readFile(name string) ([]byte, error) {
	f, err := j.dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
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
	names, err := j.otherNames()
	if err != nil {
		return nil, err
	}
	var out []store.AuditRecord
	for _, name := range names {
		data, err := j.readFile(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // finished with, or rewritten, meanwhile
		case err != nil:
			return nil, fmt.Errorf("reading audit journal %s: %w", name, err)
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
	names, err := j.otherNames()
	if err != nil {
		return 0, err
	}
	var total int64
	for _, name := range names {
		n, err := j.recoverOne(name, interrupt)
		if err != nil {
			return total, fmt.Errorf("recovering audit journal %s: %w", name, err)
		}
		total += n
	}
	return total, nil
}

func (j *journal) recoverOne(name string, interrupt func(string, []store.AuditRecord) (int64, error)) (int64, error) {
	f, err := j.dir.Open(name)
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
	rest := strings.TrimPrefix(name, j.base)
	instance := strings.TrimSuffix(rest, filepath.Ext(rest))
	n, err := interrupt(instance, parseJournal(data))
	if err != nil {
		return 0, err
	}
	return n, j.dir.Remove(name)
}
