package sqlstore

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/jsonstring"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// A journal holds the audit records of calls begun and not yet finished,
// for a database that serves one host's processes (SQLite): files of its
// own per process beside the database, named after its instance, to
// which BeginAudit appends one line. Appending hands the line to the
// kernel's page cache (a copy into a shared map, or pwrite), as a SQLite
// commit with synchronous=NORMAL hands over its WAL frames, so a record
// begun survives the process however it dies; but it costs a copy, where
// a commit costs a transaction, WAL frames for the table and its three
// indexes, and the -shm locks (docs/BENCHMARKS.md measured the begin's
// commit at 40% of a proxied call's CPU). The finish then writes the
// whole record into the table once, in a group commit nobody waits for:
// one row write per call instead of two.
//
// The process holds an exclusive flock on its files while it runs, so
// another process can tell a live journal from a dead one's: a journal
// it can lock belongs to a process that is gone, and InterruptRunning
// records its calls as interrupted and removes it. ListAudit reads every
// journal, so running calls show to any process reading the database.
//
// A journal is two files, PREFIX+INSTANCE.0 and .1, both locked for the
// process's life. Lines are appended to one; when it has grown past
// compactAt, the running records are written to the other, emptied
// first, and appends move there. The running calls are in the current
// file at every moment, and a file is only emptied once they are all in
// the other, so a crash at any point leaves every running call in one of
// the two; recovery takes both. No file is renamed or replaced while its
// process lives, so a lock, once taken, means the process is gone.
type journal struct {
	// dir is the database's directory, held open: the person may move
	// it while the database is open (serve follows it), and the journals
	// move with it. base is the database's name and "-begun-": a
	// journal's files are base + instance + ".0" and ".1".
	dir   *os.Root
	base  string
	names [2]string

	mu    sync.Mutex
	files [2]*os.File
	// maps are the files' first journalMapSize bytes, mapped shared, or
	// nil where they could not be (then lines are written with pwrite).
	maps [2][]byte
	cur  int   // the file appended to
	size int64 // of files[cur]
	// running holds the records whose finish is not committed yet, which
	// the finish writes into the table and compaction keeps.
	running map[string]store.AuditRecord
	closed  bool
	// moveAt is the size past which a finish moves the journal:
	// compactAt, or twice what the last move wrote when that was more
	// (thousands of calls running at once), so that moves stay a
	// fraction of the lines written instead of one per finish.
	moveAt int64
}

// compactAt is the size past which the journal moves to its other file
// with only its running records, once a finish is committed. A megabyte
// is a few thousand calls; moving costs a truncate, a write and the
// running records, a handful.
const compactAt = 1 << 20

// journalMapSize is how much of each file is reserved on disk and
// mapped: copying a line into the map hands it to the kernel's page
// cache, where it outlives the process as a write(2) would, for a
// hundredth of a write's cost (2 µs per call in the profile). It leaves
// room past compactAt for the lines begun before the next finish moves
// the journal; a line that does not fit is written with pwrite.
const journalMapSize = 2 << 20

// openJournal creates this process's journal files and locks them. It
// returns an error wrapping errors.ErrUnsupported where files cannot be
// locked.
func openJournal(prefix, instance string) (*journal, error) {
	dir, err := os.OpenRoot(filepath.Dir(prefix))
	if err != nil {
		return nil, fmt.Errorf("opening the audit journal's directory: %w", err)
	}
	j := &journal{dir: dir, base: filepath.Base(prefix), running: map[string]store.AuditRecord{}, moveAt: compactAt}
	for i := range j.files {
		j.names[i] = fmt.Sprintf("%s%s.%d", j.base, instance, i)
		f, err := j.createLocked(j.names[i])
		if err != nil {
			for k, f := range j.files[:i] {
				_ = f.Close()
				_ = dir.Remove(j.names[k])
			}
			_ = dir.Close()
			return nil, err
		}
		j.files[i] = f
		j.maps[i] = mapJournal(f)
	}
	return j, nil
}

// mapJournal reserves and maps f's first journalMapSize bytes, or returns
// nil where that cannot be done; lines are then written with pwrite. The
// space is reserved first because a write through the map into a hole
// the disk cannot fill kills the process (SIGBUS).
func mapJournal(f *os.File) []byte {
	if err := reserve(f, journalMapSize); err != nil {
		return nil
	}
	m, err := mapShared(f, journalMapSize)
	if err != nil {
		return nil
	}
	return m
}

// appendLocked writes line at the end of the current file.
func (j *journal) appendLocked(line []byte) error {
	if m := j.maps[j.cur]; j.size+int64(len(line)) <= int64(len(m)) {
		copy(m[j.size:], line)
		j.size += int64(len(line))
		return nil
	}
	n, err := j.files[j.cur].WriteAt(line, j.size)
	j.size += int64(n)
	return err
}

// createLocked creates name in the journal's directory (0600,
// truncated) and locks it.
func (j *journal) createLocked(name string) (*os.File, error) {
	f, err := j.dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the audit journal: %w", err)
	}
	ok, err := tryLock(f)
	if err == nil && !ok {
		err = errors.New("another process holds it")
	}
	if err != nil {
		_ = f.Close()
		_ = j.dir.Remove(name)
		return nil, fmt.Errorf("locking the audit journal %s: %w", name, err)
	}
	return f, nil
}

// journalLine is a record as the journal keeps it: one JSON object per
// line. Arguments are bytes (base64), because a tool's arguments are
// kept byte for byte, valid JSON or not.
type journalLine struct {
	ID           string `json:"id"`
	Time         int64  `json:"t"` // Unix microseconds
	User         string `json:"u,omitempty"`
	UserID       string `json:"ui,omitempty"`
	Conversation string `json:"c,omitempty"`
	Agent        string `json:"ag,omitempty"`
	Run          string `json:"r,omitempty"`
	Call         string `json:"k,omitempty"`
	Tool         string `json:"tool"`
	Server       string `json:"s,omitempty"`
	Arguments    []byte `json:"a,omitempty"`
	Approval     string `json:"ap,omitempty"`
}

// encodeLine appends r's line to b: journalLine's JSON, written by hand
// because it is on every call's path and reflection was most of its
// cost. Each line starts with a newline, so that a line cut short by a
// crash cannot swallow the next one.
func encodeLine(b []byte, r *store.AuditRecord) []byte {
	b = append(b, "\n{\"id\":"...)
	b = jsonstring.Append(b, r.ID, false)
	b = append(b, `,"t":`...)
	b = strconv.AppendInt(b, r.Time.UnixMicro(), 10)
	for _, f := range [...]struct{ key, v string }{
		{`,"u":`, r.User},
		{`,"ui":`, r.UserID},
		{`,"c":`, r.ConversationID},
		{`,"ag":`, r.Agent},
		{`,"r":`, r.RunID},
		{`,"k":`, r.CallID},
		{`,"tool":`, r.Tool},
		{`,"s":`, r.Server},
		{`,"ap":`, string(r.Approval)},
	} {
		if f.v != "" {
			b = append(b, f.key...)
			b = jsonstring.Append(b, f.v, false)
		}
	}
	if len(r.Arguments) > 0 {
		b = append(b, `,"a":"`...)
		b = base64.StdEncoding.AppendEncode(b, r.Arguments)
		b = append(b, '"')
	}
	return append(b, '}')
}

// decodeLine reads one line back; ok is false for a line that is not a
// whole record (the tail of a write cut short).
func decodeLine(line []byte) (r store.AuditRecord, ok bool) {
	var l journalLine
	if json.Unmarshal(line, &l) != nil || l.ID == "" || l.Tool == "" {
		return r, false
	}
	return store.AuditRecord{
		ID: l.ID, Time: time.UnixMicro(l.Time).UTC(), User: l.User, UserID: l.UserID, ConversationID: l.Conversation,
		Agent: l.Agent, RunID: l.Run, CallID: l.Call, Tool: l.Tool, Server: l.Server,
		Arguments: rawBytes(l.Arguments), Approval: store.AuditApproval(l.Approval), Outcome: store.OutcomeRunning,
	}, true
}

// begin appends r (ID and Time set) and returns once the kernel has it.
func (j *journal) begin(r store.AuditRecord) error {
	// Sized for the line: the arguments in base64 and the rest of the
	// record, so that it is one allocation.
	line := encodeLine(make([]byte, 0, 256+len(r.User)+len(r.Tool)+len(r.Server)+base64.StdEncoding.EncodedLen(len(r.Arguments))), &r)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return errClosed
	}
	if err := j.appendLocked(line); err != nil {
		return fmt.Errorf("writing the audit journal: %w", err)
	}
	j.running[r.ID] = r
	return nil
}

// lookup returns the running record id, if this process began it.
func (j *journal) lookup(id string) (store.AuditRecord, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	r, ok := j.running[id]
	return r, ok
}

// finished forgets id, whose finish is committed, and rewrites the
// journal when it has grown past moveAt.
func (j *journal) finished(id string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.running, id)
	if j.size > j.moveAt && !j.closed {
		// A failed rewrite leaves the journal as it was, still correct;
		// the next finish tries again.
		_ = j.compactLocked()
	}
}

// compactLocked moves the journal to its other file, emptied, with only
// the running records. Until the move the current file holds them all;
// after it the other does, and the old one is emptied only at the next
// move.
func (j *journal) compactLocked() error {
	next := 1 - j.cur
	f := j.files[next]
	// Emptied, then reserved again: until then nothing touches its map.
	if err := f.Truncate(0); err != nil {
		return err
	}
	if m := j.maps[next]; m != nil && reserve(f, len(m)) != nil {
		_ = unmap(m) // a full disk: lines go through pwrite, which reports it
		j.maps[next] = nil
	}
	var buf []byte
	for _, r := range j.running {
		buf = encodeLine(buf, &r)
	}
	cur, size := j.cur, j.size
	j.cur, j.size = next, 0
	if err := j.appendLocked(buf); err != nil {
		j.cur, j.size = cur, size
		return err
	}
	j.moveAt = max(compactAt, 2*j.size)
	return nil
}

// snapshot returns this process's running records.
func (j *journal) snapshot() []store.AuditRecord {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]store.AuditRecord, 0, len(j.running))
	for _, r := range j.running {
		out = append(out, r)
	}
	return out
}

// close ends the journal. With no call running its files are removed;
// otherwise they stay for the next start to record those calls as
// interrupted.
func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	var errs []error
	if len(j.running) == 0 {
		for _, name := range j.names {
			errs = append(errs, j.dir.Remove(name))
		}
	}
	for i, f := range j.files {
		if j.maps[i] != nil {
			errs = append(errs, unmap(j.maps[i]))
		}
		errs = append(errs, f.Close())
	}
	errs = append(errs, j.dir.Close())
	return errors.Join(errs...)
}
