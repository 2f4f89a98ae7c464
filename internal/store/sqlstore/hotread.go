package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// hotReads holds the reads made on every call of a hot path, prepared on
// the read pool the first time each runs: authenticating a request by its
// key hash runs on every /mcp call, and parsing its query was a quarter of
// its CPU on SQLite. database/sql prepares a statement again on each
// connection the first time it runs there, and keeps it. Safe for
// concurrent use.
type hotReads struct {
	r conn
	// mu guards m (statements by query as written, with '?') and closed.
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	closed bool
}

// queryRow runs query, one of a fixed few, on the read pool; the error,
// if any, comes from Scan.
func (h *hotReads) queryRow(ctx context.Context, query string, args ...any) rowScanner {
	st, err := h.stmt(ctx, query) //nolint:sqlclosecheck // kept in h.m; close closes it
	if err != nil {
		return errRow{err}
	}
	if h.r.d.Args != nil {
		args = h.r.d.Args(args)
	}
	return st.QueryRowContext(ctx, args...)
}

func (h *hotReads) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st, ok := h.m[query]; ok {
		return st, nil
	}
	if h.closed {
		return nil, errClosed
	}
	pool, ok := h.r.q.(*sql.DB)
	if !ok {
		return nil, fmt.Errorf("preparing a read on %T, not a pool", h.r.q)
	}
	q := query
	if h.r.d.Rebind != nil {
		q = h.r.d.Rebind(q)
	}
	// Prepared while holding mu: the first callers of a query wait for
	// one preparation rather than each making their own.
	st, err := pool.PrepareContext(ctx, q) //nolint:sqlclosecheck // kept in h.m; close closes it
	if err != nil {
		return nil, fmt.Errorf("preparing statement: %w", err)
	}
	if h.m == nil {
		h.m = map[string]*sql.Stmt{}
	}
	h.m[query] = st
	return st, nil
}

// close closes the statements; reads afterwards fail.
func (h *hotReads) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	var errs []error
	for q, st := range h.m {
		errs = append(errs, st.Close())
		delete(h.m, q)
	}
	return errors.Join(errs...)
}

type rowScanner interface{ Scan(dest ...any) error }

// errRow is a row whose query could not be made.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
