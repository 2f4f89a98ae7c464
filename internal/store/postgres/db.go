package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/sqlstore"
)

// Options configures [Open]. A nil or zero Options means defaults.
type Options struct {
	// MaxConns caps open connections, including the one each DB keeps for
	// its instance lock; zero means 10.
	MaxConns int
	// ConnMaxIdleTime closes connections idle that long; zero means 5m.
	ConnMaxIdleTime time.Duration
	// PollInterval is how often watchers of the change feed are woken
	// while its LISTEN connection is down; zero means 1s.
	PollInterval time.Duration
	// Logger receives warnings about the change feed; nil discards them.
	Logger *slog.Logger
}

// shared names the embedded implementation without exporting a field.
type shared = sqlstore.DB

// DB is a [store.Store] on a PostgreSQL database. Its methods are safe for
// concurrent use, also by several processes on the same database. Close it
// when done.
type DB struct {
	// shared runs the queries, on pool.
	*shared
	pool *sql.DB

	// instance identifies this DB's audit records. life is the session
	// holding the advisory lock that says the instance is alive.
	instance string
	// lifeMu guards life, which database/sql allows one user at a time.
	lifeMu sync.Mutex
	life   *sql.Conn

	logger *slog.Logger
	// listening is whether the change feed's connection is up; cancel
	// and wg stop its goroutine (see listen.go).
	listening atomic.Bool
	cancel    context.CancelFunc
	wg        sync.WaitGroup

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
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
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
	db := &DB{pool: pool, instance: store.NewID(), logger: o.Logger}
	db.shared = sqlstore.New(pool, pool, db.instance, db.dialect())
	if err := db.start(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("opening postgres database: %w", err)
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	db.cancel = cancel
	db.wg.Go(func() { db.listen(lctx, dsn, o.PollInterval) })
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
	// The lock is this replica's lease: the server drops it when the
	// session ends. A replica whose host vanishes closes nothing, so have
	// the server probe this session's socket and give up after about 25 s
	// instead of the kernel's two hours. (Ignored over a Unix socket.)
	if _, err := life.ExecContext(ctx, `SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3`); err != nil {
		return fmt.Errorf("setting the instance lock's keepalives: %w", err)
	}
	if _, err := life.ExecContext(ctx, `SELECT pg_advisory_lock($1, hashtext($2))`, lockSpace, db.instance); err != nil {
		return fmt.Errorf("taking instance lock: %w", err)
	}
	return nil
}

// lockSpace is the first key of instance advisory locks ("SB" and 1), kept
// apart from other users of two-key advisory locks on the same database.
const lockSpace = 0x53420001

// Close commits the audit writes already queued, releases the instance
// lock and closes the pool. It is idempotent and safe for concurrent use.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		// The shared part first: it commits the audit records still
		// queued, while this instance still holds its lock.
		if db.cancel != nil {
			db.cancel()
			db.wg.Wait()
		}
		errs := []error{db.shared.Close()}
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
