package sqlstore

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

const pinCols = `server, tool, kind, hash, accepted, pending_hash, pending, status, created_at, updated_at`

func scanPin(row interface{ Scan(...any) error }) (store.Pin, error) {
	var (
		p                 store.Pin
		accepted, pending string
		status            string
	)
	if err := row.Scan(&p.Server, &p.Tool, &p.Kind, &p.Hash, &accepted, &p.PendingHash, &pending, &status,
		tsCol{&p.CreatedAt}, tsCol{&p.UpdatedAt}); err != nil {
		return store.Pin{}, err
	}
	p.Accepted, p.Status = []byte(accepted), store.PinStatus(status)
	if pending != "" {
		p.Pending = []byte(pending)
	}
	return p, nil
}

// CreatePin implements [store.Store].
func (db *DB) CreatePin(ctx context.Context, p store.Pin) (store.Pin, error) {
	if err := p.Validate(); err != nil {
		return store.Pin{}, fmt.Errorf("creating pin: %w", err)
	}
	p.CreatedAt = orNow(p.CreatedAt)
	p.UpdatedAt = p.CreatedAt
	p.Status, p.PendingHash, p.Pending = store.PinAccepted, "", nil
	_, err := db.w.ExecContext(ctx, `INSERT INTO tool_pins (`+pinCols+`) VALUES (?, ?, ?, ?, ?, '', '', ?, ?, ?)`,
		p.Server, p.Tool, p.Kind, p.Hash, string(p.Accepted), string(p.Status), db.ts(p.CreatedAt), db.ts(p.UpdatedAt))
	if err != nil {
		return store.Pin{}, fmt.Errorf("creating pin %s/%s: %w", p.Server, p.Tool, db.classify(err))
	}
	return p, nil
}

// GetPin implements [store.Store].
func (db *DB) GetPin(ctx context.Context, server, tool string) (store.Pin, error) {
	p, err := scanPin(db.r.QueryRowContext(ctx, `SELECT `+pinCols+` FROM tool_pins WHERE server = ? AND tool = ?`, server, tool))
	if err != nil {
		return store.Pin{}, fmt.Errorf("getting pin %s/%s: %w", server, tool, notFound(err, "no such pin"))
	}
	return p, nil
}

// ListPins implements [store.Store].
func (db *DB) ListPins(ctx context.Context, f store.PinFilter) ([]store.Pin, error) {
	q, args := `SELECT `+pinCols+` FROM tool_pins WHERE 1 = 1`, []any{}
	if f.Server != "" {
		q, args = q+` AND server = ?`, append(args, f.Server)
	}
	if f.Status != "" {
		q, args = q+` AND status = ?`, append(args, string(f.Status))
	}
	rows, err := db.r.QueryContext(ctx, q+` ORDER BY server, tool`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing pins: %w", err)
	}
	defer rows.Close()
	var out []store.Pin
	for rows.Next() {
		p, err := scanPin(rows)
		if err != nil {
			return nil, fmt.Errorf("listing pins: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing pins: %w", err)
	}
	return out, nil
}

// HoldPin implements [store.Store].
func (db *DB) HoldPin(ctx context.Context, server, tool, hash string, def []byte) (store.Pin, error) {
	if hash == "" || len(def) == 0 {
		return store.Pin{}, fmt.Errorf("holding pin %s/%s: %w: hash and definition must be set", server, tool, store.ErrInvalid)
	}
	res, err := db.w.ExecContext(ctx, `UPDATE tool_pins SET pending_hash = ?, pending = ?, status = ?, updated_at = ? WHERE server = ? AND tool = ?`,
		hash, string(def), string(store.PinHeld), db.ts(now()), server, tool)
	if err != nil {
		return store.Pin{}, fmt.Errorf("holding pin %s/%s: %w", server, tool, err)
	}
	if err := mustAffect(res, "holding pin %s: no such pin: %w", server+"/"+tool); err != nil {
		return store.Pin{}, err
	}
	return db.GetPin(ctx, server, tool)
}

// AcceptPin implements [store.Store].
func (db *DB) AcceptPin(ctx context.Context, server, tool, hash string) (store.Pin, error) {
	res, err := db.w.ExecContext(ctx, `UPDATE tool_pins SET hash = pending_hash, accepted = pending, pending_hash = '', pending = '',
		status = ?, updated_at = ? WHERE server = ? AND tool = ? AND status = ? AND pending_hash = ?`,
		string(store.PinAccepted), db.ts(now()), server, tool, string(store.PinHeld), hash)
	if err != nil {
		return store.Pin{}, fmt.Errorf("accepting pin %s/%s: %w", server, tool, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return store.Pin{}, fmt.Errorf("accepting pin %s/%s: %w", server, tool, err)
	}
	if n == 0 {
		if _, err := db.GetPin(ctx, server, tool); err != nil {
			return store.Pin{}, fmt.Errorf("accepting pin: %w", err)
		}
		return store.Pin{}, fmt.Errorf("accepting pin %s/%s: it is not held with that definition (accepted meanwhile, or changed again): %w",
			server, tool, store.ErrConflict)
	}
	return db.GetPin(ctx, server, tool)
}

// DropPending implements [store.Store].
func (db *DB) DropPending(ctx context.Context, server, tool string) error {
	res, err := db.w.ExecContext(ctx, `UPDATE tool_pins SET pending_hash = '', pending = '', status = ?, updated_at = ?
		WHERE server = ? AND tool = ? AND status = ?`, string(store.PinAccepted), db.ts(now()), server, tool, string(store.PinHeld))
	if err != nil {
		return fmt.Errorf("dropping the pending definition of %s/%s: %w", server, tool, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		if _, err := db.GetPin(ctx, server, tool); err != nil {
			return fmt.Errorf("dropping a pending definition: %w", err)
		}
	}
	return nil
}
