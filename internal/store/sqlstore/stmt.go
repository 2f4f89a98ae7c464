package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Stmt is one statement of a [Dialect.Pipeline]: Query and Args as the
// driver takes them (rewritten by Rebind and Args); the pipeline sets Rows
// to the number of rows the statement changed.
type Stmt struct {
	Query string
	Args  []any
	Rows  int64
}

// stmtSet runs the committer's batches: through [Dialect.Pipeline] when
// the dialect has one, otherwise statement by statement in a database/sql
// transaction; a lone write runs by itself. Statements are prepared on the
// write pool before the first batch that needs them; database/sql then
// prepares each on a connection the first time it runs there and keeps it
// for that connection's life, so a hot write is parsed once per connection
// rather than once per call (SQLite's parser was an eighth of an audit
// call's CPU). They are prepared outside any transaction because SQLite's
// write pool has one connection, which a transaction holds. Only the
// committer's leader uses a stmtSet, so it has no lock.
type stmtSet struct {
	db *DB
	// rebound maps each query as written, with '?', to the driver's
	// syntax.
	rebound map[string]string
	// prepared holds the statements prepared so far, by query as written.
	prepared map[string]*sql.Stmt
	// pipe is the pipeline's statements, kept between batches.
	pipe []Stmt
	// real is the batch's writes that have a query, kept between batches.
	real []*write
}

func newStmtSet(db *DB, queries []string) *stmtSet {
	s := &stmtSet{db: db, rebound: map[string]string{}, prepared: map[string]*sql.Stmt{}}
	for _, q := range queries {
		s.rebound[q] = q
		if db.d.Rebind != nil {
			s.rebound[q] = db.d.Rebind(q)
		}
	}
	return s
}

// run runs ws in one transaction, setting each one's rows, and commits
// it. On failure nothing of ws was kept.
func (s *stmtSet) run(ctx context.Context, ws []*write) error {
	// A write without a query (committer.flush's) only marks its place.
	s.real = s.real[:0]
	for _, w := range ws {
		if w.query != "" {
			s.real = append(s.real, w)
		}
	}
	ws = s.real
	defer clear(s.real)
	if len(ws) == 0 {
		return nil
	}
	if len(ws) > 1 && s.db.d.Pipeline != nil {
		return s.pipeline(ctx, ws)
	}
	if err := s.prepare(ctx); err != nil {
		return err
	}
	if len(ws) > 1 {
		return s.tx(ctx, ws)
	}
	// A lone write runs as its own statement: the database commits it as
	// one, and BEGIN and COMMIT (or a pipeline's bookkeeping) would only
	// add their cost.
	w := ws[0]
	r, err := s.prepared[w.query].ExecContext(ctx, s.args(w.args)...)
	if err != nil {
		return s.db.classify(err)
	}
	w.rows, err = r.RowsAffected()
	return err
}

func (s *stmtSet) pipeline(ctx context.Context, ws []*write) error {
	for _, w := range ws {
		s.pipe = append(s.pipe, Stmt{Query: s.rebound[w.query], Args: s.args(w.args)})
	}
	defer func() {
		clear(s.pipe) // let the arguments go
		s.pipe = s.pipe[:0]
	}()
	if err := s.db.d.Pipeline(ctx, s.db.wdb, s.pipe); err != nil {
		return s.db.classify(err)
	}
	for i, w := range ws {
		w.rows = s.pipe[i].Rows
	}
	return nil
}

func (s *stmtSet) tx(ctx context.Context, ws []*write) error {
	tx, err := s.db.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning transaction: %w", err)
	}
	// A batch runs the same few statements many times, and binding one
	// to the transaction allocates.
	var bound [4]struct {
		query string
		st    *sql.Stmt
	}
	nbound := 0
	for _, w := range ws {
		var st *sql.Stmt
		for _, b := range bound[:nbound] {
			if b.query == w.query {
				st = b.st
				break
			}
		}
		if st == nil {
			st = tx.StmtContext(ctx, s.prepared[w.query]) //nolint:sqlclosecheck // closed by the transaction's end
			if nbound < len(bound) {
				bound[nbound].query, bound[nbound].st = w.query, st
				nbound++
			}
		}
		r, err := st.ExecContext(ctx, s.args(w.args)...)
		if err == nil {
			w.rows, err = r.RowsAffected()
		}
		if err != nil {
			_ = tx.Rollback()
			return s.db.classify(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing transaction: %w", s.db.classify(err))
	}
	return nil
}

func (s *stmtSet) args(args []any) []any {
	if s.db.d.Args != nil {
		return s.db.d.Args(args)
	}
	return args
}

// prepare prepares the queries not prepared yet.
func (s *stmtSet) prepare(ctx context.Context) error {
	if len(s.prepared) == len(s.rebound) {
		return nil
	}
	for query, q := range s.rebound {
		if _, ok := s.prepared[query]; ok {
			continue
		}
		st, err := s.db.wdb.PrepareContext(ctx, q) //nolint:sqlclosecheck // kept in s.prepared; close closes it
		if err != nil {
			return fmt.Errorf("preparing statement: %w", err)
		}
		s.prepared[query] = st
	}
	return nil
}

// close closes the prepared statements; the set prepares them again if
// used afterwards.
func (s *stmtSet) close() error {
	var errs []error
	for q, st := range s.prepared {
		errs = append(errs, st.Close())
		delete(s.prepared, q)
	}
	return errors.Join(errs...)
}
