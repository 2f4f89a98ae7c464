package sqlstore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

const entryCols = `kind, name, body, sealed, updated_by, created_at, updated_at, version`

func scanEntry(row interface{ Scan(...any) error }) (store.ConfigEntry, error) {
	var (
		e            store.ConfigEntry
		body, sealed string
	)
	if err := row.Scan(&e.Kind, &e.Name, &body, &sealed, &e.UpdatedBy, tsCol{&e.CreatedAt}, tsCol{&e.UpdatedAt}, &e.Version); err != nil {
		return store.ConfigEntry{}, err
	}
	e.Body = json.RawMessage(body)
	s, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return store.ConfigEntry{}, fmt.Errorf("config entry %s %q: sealed form: %w", e.Kind, e.Name, err)
	}
	e.Sealed = s
	return e, nil
}

func entryKey(kind, name string) string { return kind + "/" + name }

// CreateConfigEntry implements [store.Store].
func (db *DB) CreateConfigEntry(ctx context.Context, e store.ConfigEntry) (store.ConfigEntry, error) {
	if err := e.Validate(); err != nil {
		return store.ConfigEntry{}, fmt.Errorf("creating config entry: %w", err)
	}
	e.CreatedAt = now()
	e.UpdatedAt = e.CreatedAt
	e.Version = 1
	_, err := db.w.ExecContext(ctx, `INSERT INTO config_entries (`+entryCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Kind, e.Name, string(e.Body), base64.StdEncoding.EncodeToString(e.Sealed), e.UpdatedBy,
		db.ts(e.CreatedAt), db.ts(e.UpdatedAt), e.Version)
	if err != nil {
		return store.ConfigEntry{}, fmt.Errorf("creating config entry %s %q: %w", e.Kind, e.Name, db.classify(err))
	}
	db.changed(ctx, store.TopicConfig, entryKey(e.Kind, e.Name))
	return e, nil
}

// GetConfigEntry implements [store.Store].
func (db *DB) GetConfigEntry(ctx context.Context, kind, name string) (store.ConfigEntry, error) {
	e, err := scanEntry(db.r.QueryRowContext(ctx, `SELECT `+entryCols+` FROM config_entries WHERE kind = ? AND name = ?`, kind, name))
	if err != nil {
		return store.ConfigEntry{}, fmt.Errorf("getting config entry %s %q: %w", kind, name, notFound(err, "no such entry"))
	}
	return e, nil
}

// ListConfigEntries implements [store.Store].
func (db *DB) ListConfigEntries(ctx context.Context) ([]store.ConfigEntry, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+entryCols+` FROM config_entries ORDER BY kind, name`)
	if err != nil {
		return nil, fmt.Errorf("listing config entries: %w", err)
	}
	defer rows.Close()
	var out []store.ConfigEntry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("listing config entries: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing config entries: %w", err)
	}
	return out, nil
}

// UpdateConfigEntry implements [store.Store]. The version check is in the
// UPDATE itself, so of two concurrent writers at one version exactly one
// wins; the loser's zero rows tell a stale version from a missing entry
// by one more read.
func (db *DB) UpdateConfigEntry(ctx context.Context, e store.ConfigEntry) (store.ConfigEntry, error) {
	if err := e.Validate(); err != nil {
		return store.ConfigEntry{}, fmt.Errorf("updating config entry: %w", err)
	}
	e.UpdatedAt = now()
	res, err := db.w.ExecContext(ctx, `UPDATE config_entries SET body = ?, sealed = ?, updated_by = ?, updated_at = ?, version = version + 1
		WHERE kind = ? AND name = ? AND version = ?`,
		string(e.Body), base64.StdEncoding.EncodeToString(e.Sealed), e.UpdatedBy, db.ts(e.UpdatedAt), e.Kind, e.Name, e.Version)
	if err != nil {
		return store.ConfigEntry{}, fmt.Errorf("updating config entry %s %q: %w", e.Kind, e.Name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return store.ConfigEntry{}, fmt.Errorf("updating config entry %s %q: %w", e.Kind, e.Name, err)
	} else if n != 1 {
		cur, err := db.GetConfigEntry(ctx, e.Kind, e.Name)
		if err != nil {
			return store.ConfigEntry{}, fmt.Errorf("updating: %w", err)
		}
		return store.ConfigEntry{}, fmt.Errorf("config entry %s %q is at version %d, not %d: %w", e.Kind, e.Name, cur.Version, e.Version, store.ErrConflict)
	}
	cur, err := db.getEntryW(ctx, e.Kind, e.Name)
	if err != nil {
		return store.ConfigEntry{}, fmt.Errorf("updating config entry: %w", err)
	}
	db.changed(ctx, store.TopicConfig, entryKey(e.Kind, e.Name))
	return cur, nil
}

// getEntryW reads an entry through the writer, so that it sees the write
// just made even where readers lag (SQLite's separate read pool).
func (db *DB) getEntryW(ctx context.Context, kind, name string) (store.ConfigEntry, error) {
	e, err := scanEntry(db.w.QueryRowContext(ctx, `SELECT `+entryCols+` FROM config_entries WHERE kind = ? AND name = ?`, kind, name))
	if err != nil {
		return store.ConfigEntry{}, fmt.Errorf("reading config entry %s %q: %w", kind, name, notFound(err, "no such entry"))
	}
	return e, nil
}

// DeleteConfigEntry implements [store.Store].
func (db *DB) DeleteConfigEntry(ctx context.Context, kind, name string) error {
	res, err := db.w.ExecContext(ctx, `DELETE FROM config_entries WHERE kind = ? AND name = ?`, kind, name)
	if err != nil {
		return fmt.Errorf("deleting config entry %s %q: %w", kind, name, err)
	}
	if err := mustAffect(res, "deleting config entry %s: no such entry: %w", entryKey(kind, name)); err != nil {
		return err
	}
	db.changed(ctx, store.TopicConfig, entryKey(kind, name))
	return nil
}
