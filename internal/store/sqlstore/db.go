package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Dialect is what differs between the databases [DB] runs on. Every func
// field is required unless its comment says otherwise.
type Dialect struct {
	// Rebind rewrites a query's '?' placeholders into the driver's syntax;
	// nil leaves queries as written.
	Rebind func(query string) string
	// Args adjusts arguments before they reach the driver (PostgreSQL text
	// refuses NUL bytes, for one); nil passes them unchanged. It must not
	// change the caller's slice.
	Args func(args []any) []any
	// Time converts a non-zero time (UTC, microseconds) to its column
	// value. The zero time is always stored as NULL.
	Time func(t time.Time) any
	// ToolArgs converts tool arguments, kept byte for byte, to their
	// column value.
	ToolArgs func(a json.RawMessage) any
	// Classify maps the driver's constraint failures onto store.ErrConflict
	// (unique) and store.ErrNotFound (foreign key); other errors pass
	// through.
	Classify func(err error) error
	// ToolMatch returns a WHERE condition with one placeholder and its
	// argument, matching tool names against the store's glob (only * and ?
	// are special).
	ToolMatch func(glob string) (cond string, arg any)
	// LockRow is appended to the SELECT that reads a row a transaction will
	// update ("FOR UPDATE"), or empty where a write transaction already
	// excludes other writers.
	LockRow string
	// WriteTimeout bounds each group commit of audit records (see
	// committer), which runs apart from its callers' contexts; zero means
	// no bound, for a database whose own timeouts bound every write.
	WriteTimeout time.Duration
	// Pipeline, when set, runs stmts in one transaction, all or none, and
	// commits it, setting each one's Rows; a database reached over the
	// network sends them in one round trip. When nil, the committer runs
	// them one by one in a database/sql transaction, prepared.
	Pipeline func(ctx context.Context, db *sql.DB, stmts []Stmt) error
	// Claim, when set, tells whether the instance that began running audit
	// records is gone; when dead it also holds that instance's claim until
	// release is called, so that the answer stays true meanwhile. When nil,
	// every other instance counts as gone (one process per database).
	Claim func(ctx context.Context, instance string) (release func(), dead bool, err error)
	// Notify, when set, tells other processes sharing the database of a
	// change (PostgreSQL: NOTIFY); nil when the database serves one process.
	Notify func(ctx context.Context, c store.Change) error
}

// DB implements store.Store on database/sql. Its methods are safe for
// concurrent use. The dialect package embeds it and owns the connection
// pools; its Close calls [DB.Close] before closing them.
type DB struct {
	d *Dialect
	// wdb starts write transactions; w and r run statements outside them.
	// With SQLite, w is the single writer connection and r the read-only
	// pool; with PostgreSQL both are the same pool.
	wdb  *sql.DB
	w, r conn
	// instance identifies this process's audit records; see InterruptRunning.
	instance string
	// audit writes the audit trail in group commits.
	audit *committer
	// journal, when set, holds the calls begun and not yet finished
	// (see journal); nil begins each record in the table.
	journal *journal
	// hot runs the reads of hot paths, prepared.
	hot *hotReads
	// feed wakes the watchers of changes; see changes.go.
	feed      store.Feed
	closeOnce sync.Once
	closeErr  error
}

// maxBatch caps the writes of one group commit, so that one batch cannot
// hold the write lock for long; it is well above what load fills (16
// callers back to back made batches of 12 writes on average).
const maxBatch = 64

// New returns a DB that writes through w and reads through r (which may be
// the same pool) and tags its audit records with instance.
func New(w, r *sql.DB, instance string, d Dialect) *DB {
	db := &DB{d: &d, wdb: w, w: conn{w, &d}, r: conn{r, &d}, instance: instance}
	db.audit = newCommitter(db, maxBatch, auditQueries, auditMultiRow)
	db.hot = &hotReads{r: db.r}
	return db
}

// UseJournal makes this process begin audit records in a journal of its
// own, prefix followed by the instance (see journal), instead of the
// table; for a database whose processes share one host (SQLite). Call it
// before the first BeginAudit. Where files cannot be locked it leaves
// records beginning in the table.
func (db *DB) UseJournal(prefix string) error {
	j, err := openJournal(prefix, db.instance)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return nil
	case err != nil:
		return err
	}
	db.journal = j
	db.audit.delay = journalDelay
	db.audit.maxBatch = journalBatch
	db.audit.batch = make([]*write, 0, journalBatch)
	return nil
}

// Close refuses further audit writes, waits until those queued are
// committed and closes the prepared statements. It leaves the pools open
// for the dialect package to close. Close is idempotent and safe for
// concurrent use.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		if err := errors.Join(db.audit.close(), db.hot.close()); err != nil {
			db.closeErr = fmt.Errorf("closing prepared statements: %w", err)
		}
		// After the committer: the finishes it committed while closing
		// are what let the journal go.
		if db.journal != nil {
			db.closeErr = errors.Join(db.closeErr, db.journal.close())
		}
	})
	return db.closeErr
}

// write runs fn in a transaction and commits it when fn returns nil.
func (db *DB) write(ctx context.Context, fn func(tx conn) error) error {
	tx, err := db.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning transaction: %w", err)
	}
	if err := fn(conn{tx, db.d}); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing transaction: %w", db.classify(err))
	}
	return nil
}

// ts converts t to its column value, or NULL for the zero time.
func (db *DB) ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return db.d.Time(t)
}

// argsCol converts tool arguments to their column value.
func (db *DB) argsCol(a json.RawMessage) any { return db.d.ToolArgs(a) }

// classify maps constraint failures onto the store's sentinels.
func (db *DB) classify(err error) error { return db.d.Classify(err) }

// SchemaVersion returns the highest migration applied to the database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := db.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading schema version: %w", err)
	}
	return v, nil
}

// querier is what *sql.DB, *sql.Tx and *sql.Conn have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// conn runs the queries of this package, written with '?' placeholders,
// after the dialect has rewritten them and their arguments.
type conn struct {
	q querier
	d *Dialect
}

func (c conn) prepare(query string, args []any) (string, []any) {
	if c.d.Rebind != nil {
		query = c.d.Rebind(query)
	}
	if c.d.Args != nil {
		args = c.d.Args(args)
	}
	return query, args
}

func (c conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	query, args = c.prepare(query, args)
	return c.q.ExecContext(ctx, query, args...)
}

func (c conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	query, args = c.prepare(query, args)
	return c.q.QueryContext(ctx, query, args...)
}

func (c conn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	query, args = c.prepare(query, args)
	return c.q.QueryRowContext(ctx, query, args...)
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
