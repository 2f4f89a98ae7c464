package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

const conversationCols = `id, title, agent, user_name, created_at, updated_at`

func scanConversation(row interface{ Scan(...any) error }) (store.Conversation, error) {
	var c store.Conversation
	err := row.Scan(&c.ID, &c.Title, &c.Agent, &c.User, tsCol{&c.CreatedAt}, tsCol{&c.UpdatedAt})
	return c, err
}

// CreateConversation implements [store.Store].
func (db *DB) CreateConversation(ctx context.Context, c store.Conversation) (store.Conversation, error) {
	if c.ID == "" {
		c.ID = store.NewID()
	}
	c.CreatedAt = orNow(c.CreatedAt)
	c.UpdatedAt = c.CreatedAt
	_, err := db.w.ExecContext(ctx, `INSERT INTO conversations (`+conversationCols+`) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, c.Title, c.Agent, c.User, db.ts(c.CreatedAt), db.ts(c.UpdatedAt))
	if err != nil {
		return store.Conversation{}, fmt.Errorf("creating conversation %q: %w", c.ID, db.classify(err))
	}
	return c, nil
}

// GetConversation implements [store.Store].
func (db *DB) GetConversation(ctx context.Context, id string) (store.Conversation, error) {
	c, err := scanConversation(db.r.QueryRowContext(ctx, `SELECT `+conversationCols+` FROM conversations WHERE id = ?`, id))
	if err != nil {
		return store.Conversation{}, fmt.Errorf("getting conversation %q: %w", id, notFound(err, "no such conversation"))
	}
	return c, nil
}

// ListConversations implements [store.Store].
func (db *DB) ListConversations(ctx context.Context, f store.ConversationFilter) ([]store.Conversation, string, error) {
	limit := store.PageSize(f.Limit, 50)
	q := `SELECT ` + conversationCols + ` FROM conversations WHERE user_name = ?`
	args := []any{f.User}
	if f.Cursor != "" {
		at, id, err := parseCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (updated_at < ? OR (updated_at = ? AND id < ?))`
		args = append(args, db.ts(at), db.ts(at), id)
	}
	q += ` ORDER BY updated_at DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("listing conversations: %w", err)
	}
	defer rows.Close()
	var page []store.Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, "", fmt.Errorf("listing conversations: %w", err)
		}
		page = append(page, c)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("listing conversations: %w", err)
	}
	var next string
	if len(page) > limit {
		page = page[:limit]
		last := page[limit-1]
		next = strconv.FormatInt(last.UpdatedAt.UnixMicro(), 10) + "_" + last.ID
	}
	return page, next, nil
}

// parseCursor splits a cursor made by ListConversations.
func parseCursor(cursor string) (time.Time, string, error) {
	us, id, ok := strings.Cut(cursor, "_")
	n, err := strconv.ParseInt(us, 10, 64)
	if !ok || err != nil || id == "" {
		return time.Time{}, "", fmt.Errorf("listing conversations: %w: malformed cursor %q; pass the next value a previous page returned", store.ErrInvalid, cursor)
	}
	return time.UnixMicro(n).UTC(), id, nil
}

// DeleteConversation implements [store.Store].
func (db *DB) DeleteConversation(ctx context.Context, id string) error {
	res, err := db.w.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("deleting conversation %q: %w", id, err)
	}
	return mustAffect(res, "deleting conversation %q: no such conversation: %w", id)
}

// SetConversationTitle implements [store.Store].
func (db *DB) SetConversationTitle(ctx context.Context, id, title string) error {
	res, err := db.w.ExecContext(ctx, `UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?`, title, db.ts(now()), id)
	if err != nil {
		return fmt.Errorf("setting title of conversation %q: %w", id, err)
	}
	return mustAffect(res, "setting title of conversation %q: no such conversation: %w", id)
}

// mustAffect returns a store.ErrNotFound error built from format and key
// when res changed no row.
func mustAffect(res sql.Result, format, key string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("counting changed rows: %w", err)
	}
	if n == 0 {
		return fmt.Errorf(format, key, store.ErrNotFound)
	}
	return nil
}
