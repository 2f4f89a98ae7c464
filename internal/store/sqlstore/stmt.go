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
	// multi maps a one-row INSERT to its form for several rows; args is
	// the arguments of such a statement, kept between batches.
	multi map[string]multiRow
	args  []any
}

// multiRow is a one-row INSERT's form that writes n rows at once.
type multiRow struct {
	query string
	n     int
}

func newStmtSet(db *DB, queries []string, multi map[string]multiRow) *stmtSet {
	s := &stmtSet{db: db, rebound: map[string]string{}, prepared: map[string]*sql.Stmt{}, multi: multi}
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
	r, err := s.prepared[w.query].ExecContext(ctx, s.argsFor(w.args)...)
	if err != nil {
		return s.db.classify(err)
	}
	w.rows, err = r.RowsAffected()
	return err
}

func (s *stmtSet) pipeline(ctx context.Context, ws []*write) error {
	for _, w := range ws {
		s.pipe = append(s.pipe, Stmt{Query: s.rebound[w.query], Args: s.argsFor(w.args)})
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
	stmt := func(query string) *sql.Stmt {
		for _, b := range bound[:nbound] {
			if b.query == query {
				return b.st
			}
		}
		st := tx.StmtContext(ctx, s.prepared[query]) //nolint:sqlclosecheck // closed by the transaction's end
		if nbound < len(bound) {
			bound[nbound].query, bound[nbound].st = query, st
			nbound++
		}
		return st
	}
	for i := 0; i < len(ws); {
		n, err := s.exec(ctx, stmt, ws[i:])
		if err != nil {
			_ = tx.Rollback()
			return s.db.classify(err)
		}
		i += n
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing transaction: %w", s.db.classify(err))
	}
	return nil
}

// exec runs the first of ws, or, when it and the writes after it are
// enough of one multi-row INSERT, that many as one statement; it returns
// how many it ran.
func (s *stmtSet) exec(ctx context.Context, stmt func(query string) *sql.Stmt, ws []*write) (int, error) {
	w := ws[0]
	if m, ok := s.multi[w.query]; ok && len(ws) >= m.n {
		same := 1
		for same < m.n && ws[same].query == w.query {
			same++
		}
		if same == m.n {
			s.args = s.args[:0]
			for _, v := range ws[:m.n] {
				s.args = append(s.args, v.args...)
			}
			//nolint:sqlclosecheck // the transaction's statement, closed by its end
			r, err := stmt(m.query).ExecContext(ctx, s.argsFor(s.args)...)
			clear(s.args) // let the values go
			if err != nil {
				return 0, err
			}
			rows, err := r.RowsAffected()
			if err != nil {
				return 0, err
			}
			if rows != int64(m.n) {
				return 0, fmt.Errorf("a statement of %d rows wrote %d", m.n, rows)
			}
			for _, v := range ws[:m.n] {
				v.rows = 1
			}
			return m.n, nil
		}
	}
	//nolint:sqlclosecheck // the transaction's statement, closed by its end
	r, err := stmt(w.query).ExecContext(ctx, s.argsFor(w.args)...)
	if err == nil {
		w.rows, err = r.RowsAffected()
	}
	return 1, err
}

func (s *stmtSet) argsFor(args []any) []any {
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
