package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// Options configures [Open]. A nil or zero Options means defaults.
type Options struct {
	// MaxConns caps open connections, including the one each DB keeps for
	// its instance lock; zero means 10.
	MaxConns int
	// ConnMaxIdleTime closes connections idle that long; zero means 5m.
	ConnMaxIdleTime time.Duration
}

// DB is a [store.Store] on a PostgreSQL database. Its methods are safe for
// concurrent use, also by several processes on the same database. Close it
// when done.
type DB struct {
	pool *sql.DB
	// w and r both run on pool; the names match the sqlite dialect, whose
	// code this mirrors.
	w, r pg

	// instance identifies this DB's audit records. life is the session
	// holding the advisory lock that says the instance is alive.
	instance string
	// lifeMu guards life, which database/sql allows one user at a time.
	lifeMu sync.Mutex
	life   *sql.Conn

	closeOnce sync.Once
	closeErr  error
}

var _ store.Store = (*DB)(nil)

// Open connects to the database dsn names (a postgres:// URL or key=value
// string; pgx reads search_path and other run-time parameters from it) and
// migrates it to the current schema. Open refuses, with an error wrapping
// [store.ErrSchemaTooNew], a database migrated by a newer Switchboard.
func Open(ctx context.Context, dsn string, opts *Options) (*DB, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 10
	}
	if o.ConnMaxIdleTime <= 0 {
		o.ConnMaxIdleTime = 5 * time.Minute
	}
	if dsn == "" {
		return nil, fmt.Errorf("opening postgres database: %w: empty DSN", store.ErrInvalid)
	}
	pool, err := sql.Open("pgx", dsn)
	if err != nil {
		// pgx puts the DSN, password included, in some parse errors.
		return nil, fmt.Errorf("opening postgres database: malformed DSN; expected postgres://user@host:port/db?sslmode=... or key=value pairs")
	}
	// The instance lock needs its own connection, so allow at least two.
	pool.SetMaxOpenConns(max(o.MaxConns, 2))
	pool.SetMaxIdleConns(max(o.MaxConns, 2))
	pool.SetConnMaxIdleTime(o.ConnMaxIdleTime)
	db := &DB{pool: pool, w: pg{pool}, r: pg{pool}, instance: store.NewID()}
	if err := db.start(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("opening postgres database: %w", err)
	}
	return db, nil
}

// start migrates the schema and takes the instance lock.
func (db *DB) start(ctx context.Context) error {
	if err := db.pool.PingContext(ctx); err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	if err := db.migrate(ctx); err != nil {
		return err
	}
	life, err := db.pool.Conn(ctx)
	if err != nil {
		return fmt.Errorf("taking instance lock: %w", err)
	}
	db.life = life
	if _, err := life.ExecContext(ctx, `SELECT pg_advisory_lock($1, hashtext($2))`, lockSpace, db.instance); err != nil {
		return fmt.Errorf("taking instance lock: %w", err)
	}
	return nil
}

// lockSpace is the first key of instance advisory locks ("SB" and 1), kept
// apart from other users of two-key advisory locks on the same database.
const lockSpace = 0x53420001

// Close releases the instance lock, waits for running statements and closes
// the pool. It is idempotent and safe for concurrent use.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		var errs []error
		db.lifeMu.Lock()
		if db.life != nil {
			// Unlock explicitly: the server notices a closed socket only
			// later, and a replica restarting at once must see this
			// instance gone.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := db.life.ExecContext(ctx, `SELECT pg_advisory_unlock_all()`)
			cancel()
			errs = append(errs, err, db.life.Close())
			db.life = nil
		}
		db.lifeMu.Unlock()
		errs = append(errs, db.pool.Close())
		if err := errors.Join(errs...); err != nil {
			db.closeErr = fmt.Errorf("closing postgres database: %w", err)
		}
	})
	return db.closeErr
}

// write runs fn in a transaction and commits it when fn returns nil.
func (db *DB) write(ctx context.Context, fn func(tx pg) error) error {
	tx, err := db.pool.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning transaction: %w", err)
	}
	if err := fn(pg{tx}); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing transaction: %w", classify(err))
	}
	return nil
}

// querier is what *sql.DB, *sql.Tx and *sql.Conn have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// pg runs queries written with '?' placeholders, as the sqlite dialect
// writes them, after numbering them $1, $2... for PostgreSQL. It also makes
// string arguments storable: see [textArgs].
type pg struct{ q querier }

func (p pg) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.q.ExecContext(ctx, rebind(query), textArgs(args)...)
}

func (p pg) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.q.QueryContext(ctx, rebind(query), textArgs(args)...)
}

func (p pg) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.q.QueryRowContext(ctx, rebind(query), textArgs(args)...)
}

// textArgs replaces NUL bytes and invalid UTF-8 in string arguments with
// U+FFFD, because PostgreSQL text refuses both and a tool's error text or
// a model's output must not make a write fail. (Tool arguments, kept byte
// for byte, are []byte and go to bytea columns untouched.)
func textArgs(args []any) []any {
	cloned := false
	for i, a := range args {
		s, ok := a.(string)
		if !ok || (utf8.ValidString(s) && !strings.Contains(s, "\x00")) {
			continue
		}
		if !cloned {
			// The caller's slice is not ours to change.
			args, cloned = slices.Clone(args), true
		}
		args[i] = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
	}
	return args
}

func (p pg) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return p.q.PrepareContext(ctx, rebind(query))
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// rebind numbers the '?' placeholders of query. Queries in this package
// have no '?' inside string literals.
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}
