package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

const agentCols = `name, description, model, prompt, servers, router, source, created_at, updated_at, version`

func scanAgent(row interface{ Scan(...any) error }) (store.Agent, error) {
	var (
		a       store.Agent
		servers sql.NullString
	)
	err := row.Scan(&a.Name, &a.Description, &a.Model, &a.Prompt, &servers, &a.Router, &a.Source,
		tsCol{&a.CreatedAt}, tsCol{&a.UpdatedAt}, &a.Version)
	if err != nil {
		return store.Agent{}, err
	}
	if a.Servers, err = decodeList(servers); err != nil {
		return store.Agent{}, fmt.Errorf("agent %q servers: %w", a.Name, err)
	}
	return a, nil
}

// CreateAgent implements [store.Store].
func (db *DB) CreateAgent(ctx context.Context, a store.Agent) (store.Agent, error) {
	if err := a.Validate(); err != nil {
		return store.Agent{}, fmt.Errorf("creating agent: %w", err)
	}
	if a.Source == "" {
		a.Source = store.SourceRuntime
	}
	a.Servers = slices.Clone(a.Servers)
	a.CreatedAt = now()
	a.UpdatedAt = a.CreatedAt
	a.Version = 1
	servers, err := encodeList(a.Servers)
	if err != nil {
		return store.Agent{}, fmt.Errorf("creating agent %q: %w", a.Name, err)
	}
	_, err = db.w.ExecContext(ctx, `INSERT INTO agents (`+agentCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.Name, a.Description, a.Model, a.Prompt, servers, a.Router, a.Source, db.ts(a.CreatedAt), db.ts(a.UpdatedAt), a.Version)
	if err != nil {
		return store.Agent{}, fmt.Errorf("creating agent %q: %w", a.Name, db.classify(err))
	}
	db.changed(ctx, store.TopicAgents, a.Name)
	return a, nil
}

// GetAgent implements [store.Store].
func (db *DB) GetAgent(ctx context.Context, name string) (store.Agent, error) {
	return db.getAgent(ctx, db.r, name)
}

func (db *DB) getAgent(ctx context.Context, q queryRower, name string) (store.Agent, error) {
	return db.getAgentLock(ctx, q, name, "")
}

// getAgentLock reads the named agent; lock (the dialect's LockRow, such as
// "FOR UPDATE") also locks its row until the transaction ends.
func (db *DB) getAgentLock(ctx context.Context, q queryRower, name, lock string) (store.Agent, error) {
	a, err := scanAgent(q.QueryRowContext(ctx, `SELECT `+agentCols+` FROM agents WHERE name = ? `+lock, name))
	if err != nil {
		return store.Agent{}, fmt.Errorf("getting agent %q: %w", name, notFound(err, "no such agent"))
	}
	return a, nil
}

// ListAgents implements [store.Store].
func (db *DB) ListAgents(ctx context.Context) ([]store.Agent, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+agentCols+` FROM agents ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("listing agents: %w", err)
	}
	defer rows.Close()
	var agents []store.Agent
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, fmt.Errorf("listing agents: %w", err)
		}
		agents = append(agents, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing agents: %w", err)
	}
	return agents, nil
}

// UpdateAgent implements [store.Store].
func (db *DB) UpdateAgent(ctx context.Context, a store.Agent) (store.Agent, error) {
	if err := a.Validate(); err != nil {
		return store.Agent{}, fmt.Errorf("updating agent: %w", err)
	}
	var out store.Agent
	err := db.write(ctx, func(tx conn) error {
		cur, err := db.getAgent(ctx, tx, a.Name)
		if err != nil {
			return err
		}
		if cur.Version != a.Version {
			return fmt.Errorf("agent %q is at version %d, not %d: %w", a.Name, cur.Version, a.Version, store.ErrConflict)
		}
		if a.Source == "" {
			a.Source = cur.Source
		}
		a.CreatedAt = cur.CreatedAt
		out, err = db.putAgent(ctx, tx, a)
		return err
	})
	if err != nil {
		return store.Agent{}, fmt.Errorf("updating agent %q: %w", a.Name, err)
	}
	db.changed(ctx, store.TopicAgents, a.Name)
	return out, nil
}

// putAgent writes a over the stored agent at a.Version, returning it at the
// next version. ErrConflict if the row moved on meanwhile.
func (db *DB) putAgent(ctx context.Context, tx conn, a store.Agent) (store.Agent, error) {
	a.Servers = slices.Clone(a.Servers)
	servers, err := encodeList(a.Servers)
	if err != nil {
		return store.Agent{}, err
	}
	a.UpdatedAt = now()
	res, err := tx.ExecContext(ctx, `UPDATE agents SET description = ?, model = ?, prompt = ?, servers = ?, router = ?, source = ?,
		updated_at = ?, version = version + 1 WHERE name = ? AND version = ?`,
		a.Description, a.Model, a.Prompt, servers, a.Router, a.Source, db.ts(a.UpdatedAt), a.Name, a.Version)
	if err != nil {
		return store.Agent{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return store.Agent{}, errors.Join(fmt.Errorf("agent %q changed meanwhile: %w", a.Name, store.ErrConflict), err)
	}
	a.Version++
	return a, nil
}

// DeleteAgent implements [store.Store].
func (db *DB) DeleteAgent(ctx context.Context, name string) error {
	res, err := db.w.ExecContext(ctx, `DELETE FROM agents WHERE name = ?`, name)
	if err != nil {
		return fmt.Errorf("deleting agent %q: %w", name, err)
	}
	if err := mustAffect(res, "deleting agent %q: no such agent: %w", name); err != nil {
		return err
	}
	db.changed(ctx, store.TopicAgents, name)
	return nil
}

// AssignServer implements [store.Store].
func (db *DB) AssignServer(ctx context.Context, agent, server string) (store.Agent, error) {
	return db.editServers(ctx, agent, server, func(a *store.Agent) (bool, error) {
		if a.Servers == nil || slices.Contains(a.Servers, server) {
			return false, nil
		}
		a.Servers = append(a.Servers, server)
		slices.Sort(a.Servers)
		return true, nil
	})
}

// RemoveServer implements [store.Store].
func (db *DB) RemoveServer(ctx context.Context, agent, server string) (store.Agent, error) {
	return db.editServers(ctx, agent, server, func(a *store.Agent) (bool, error) {
		if a.Servers == nil {
			return false, fmt.Errorf("agent %q uses every server; give it an explicit server list before removing one: %w", a.Name, store.ErrConflict)
		}
		i := slices.Index(a.Servers, server)
		if i < 0 {
			return false, nil
		}
		a.Servers = slices.Delete(a.Servers, i, i+1)
		return true, nil
	})
}

// editServers reads the agent, lets edit change its Servers and writes it
// back in one transaction. The write is conditional on the version read, so
// it stays atomic even where transactions do not lock the row.
func (db *DB) editServers(ctx context.Context, agent, server string, edit func(*store.Agent) (bool, error)) (store.Agent, error) {
	if server == "" {
		return store.Agent{}, fmt.Errorf("changing servers of agent %q: %w: empty server name", agent, store.ErrInvalid)
	}
	var out store.Agent
	err := db.write(ctx, func(tx conn) error {
		// Lock the row, where the dialect needs it, so that concurrent
		// edits queue instead of failing the version check.
		a, err := db.getAgentLock(ctx, tx, agent, db.d.LockRow)
		if err != nil {
			return err
		}
		changed, err := edit(&a)
		if err != nil || !changed {
			out = a
			return err
		}
		out, err = db.putAgent(ctx, tx, a)
		return err
	})
	if err != nil {
		return store.Agent{}, fmt.Errorf("changing servers of agent %q: %w", agent, err)
	}
	db.changed(ctx, store.TopicAgents, agent)
	return out, nil
}
