package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlstore"
)

// Options configures [Open]. A nil or zero Options means defaults.
type Options struct {
	// BusyTimeout is how long a statement waits for a lock held by another
	// process before failing; zero means 5s.
	BusyTimeout time.Duration
	// Readers caps the read-only connections; zero means 4.
	Readers int
	// BeginsInTable writes each tool call's audit record into the table
	// when the call begins, as on PostgreSQL, instead of into this
	// process's journal beside the file (PATH-begun-INSTANCE) until it
	// finishes. Running calls are then visible to anything that reads
	// the file with SQLite itself, for about twice the audit trail's
	// cost per call (docs/BENCHMARKS.md).
	BeginsInTable bool
}

// journalInfix follows the database's path in the name of each
// process's journal of calls begun: switchboard.db-begun-INSTANCE.
const journalInfix = "-begun-"

// shared names the embedded implementation without exporting a field.
type shared = sqlstore.DB

// DB is a [store.Store] on one SQLite file. Its methods are safe for
// concurrent use. Close it when done.
type DB struct {
	// shared runs the queries, on w and r.
	*shared
	// w is the only connection that writes (MaxOpenConns 1): SQLite admits
	// one writer at a time, and queuing on database/sql's pool is fairer and
	// cheaper than busy-waiting inside SQLite.
	w *sql.DB
	// r is a pool of query_only connections; in WAL mode they never block
	// the writer nor wait for it.
	r         *sql.DB
	closeOnce sync.Once
	closeErr  error
}

var _ store.Store = (*DB)(nil)

// Open opens (creating it when missing) the SQLite database at path and
// migrates it to the current schema. A new file is created with mode 0600
// and a missing directory with 0700, because the database holds
// conversations and key hashes. Open refuses, with an error wrapping
// [store.ErrSchemaTooNew], a database migrated by a newer Switchboard.
func Open(ctx context.Context, path string, opts *Options) (*DB, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.Readers <= 0 {
		o.Readers = 4
	}
	if path == "" {
		return nil, fmt.Errorf("opening sqlite database: %w: empty path", store.ErrInvalid)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening sqlite database %s: %w", path, err)
	}
	if err := createFile(abs); err != nil {
		return nil, err
	}

	w, err := sql.Open("sqlite", dsn(abs, o, false))
	if err != nil {
		return nil, fmt.Errorf("opening sqlite database %s: %w", abs, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	r, err := sql.Open("sqlite", dsn(abs, o, true))
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("opening sqlite database %s: %w", abs, err)
	}
	r.SetMaxOpenConns(o.Readers)
	r.SetMaxIdleConns(o.Readers)

	db := &DB{shared: sqlstore.New(w, r, store.NewID(), dialect()), w: w, r: r}
	if err := db.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("opening sqlite database %s: %w", abs, err)
	}
	if !o.BeginsInTable {
		if err := db.UseJournal(abs + journalInfix); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("opening sqlite database %s: %w", abs, err)
		}
	}
	return db, nil
}

// createFile makes path's directory (0700) and the file itself (0600) if
// they are missing; SQLite would otherwise create them with the umask's
// defaults. Existing files and directories keep their modes.
func createFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating directory for sqlite database %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case errors.Is(err, os.ErrExist):
		return nil
	case err != nil:
		return fmt.Errorf("creating sqlite database %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("creating sqlite database %s: %w", path, err)
	}
	return nil
}

// dsn builds a modernc.org/sqlite URI for path. The path is escaped so that
// '?' or '#' in a file name cannot be read as URI syntax.
//
// What each setting keeps:
//   - journal_mode=WAL: a commit appends its pages to the -wal file, and
//     readers keep reading the snapshot they began with, so reads never
//     wait for the writer nor it for them.
//   - synchronous=NORMAL: with WAL, a commit is written to the -wal file
//     (handed to the kernel) before it returns, and the file is flushed to
//     disk at checkpoints. A process that dies, however it dies, loses
//     nothing it committed (TestCrash kills one with SIGKILL); a power cut
//     or kernel crash may lose the last commits, never the file's
//     integrity. FULL would add an fsync to every commit for that last
//     case.
//   - busy_timeout: how long a write waits for another process's lock (a
//     short command sharing the file) before failing with SQLITE_BUSY.
//   - foreign_keys: cascades and references hold.
//
// wal_autocheckpoint and mmap_size stay at SQLite's defaults: a larger
// checkpoint interval, checkpoints taken off the commit path, and a
// 256 MiB mmap were measured and none helped (docs/BENCHMARKS.md).
func dsn(path string, o Options, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(o.BusyTimeout.Milliseconds(), 10)+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		// BEGIN IMMEDIATE takes the write lock up front, so a transaction
		// that reads then writes cannot fail half-way with SQLITE_BUSY
		// because another process wrote in between.
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	return u.String()
}

// Close commits the audit writes already queued, then closes both
// connection pools. It is idempotent and safe for concurrent use.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		// The shared part first: it commits the audit records still
		// queued, through w.
		db.closeErr = errors.Join(db.shared.Close(), db.r.Close(), db.w.Close())
		if db.closeErr != nil {
			db.closeErr = fmt.Errorf("closing sqlite database: %w", db.closeErr)
		}
	})
	return db.closeErr
}
