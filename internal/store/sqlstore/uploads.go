package sqlstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

var _ store.Uploads = (*DB)(nil)

const uploadCols = `id, conversation_id, user_id, name, mime_type, size, sha256, path, created_at`

// CreateUpload implements [store.Uploads]. The insert selects the
// conversation row, so an upload into a missing conversation inserts
// nothing and is ErrNotFound in both dialects.
func (db *DB) CreateUpload(ctx context.Context, u store.Upload) (store.Upload, error) {
	if u.ID == "" {
		u.ID = "up_" + rand.Text()
	}
	if err := u.Validate(); err != nil {
		return store.Upload{}, fmt.Errorf("creating upload: %w", err)
	}
	sum := sha256.Sum256(u.Data)
	u.SHA256 = hex.EncodeToString(sum[:])
	u.CreatedAt = now()
	res, err := db.w.ExecContext(ctx, `INSERT INTO uploads (`+uploadCols+`, data)
		SELECT ?, id, ?, ?, ?, ?, ?, ?, ?, ? FROM conversations WHERE id = ?`,
		u.ID, u.UserID, u.Name, u.MIMEType, u.Size, u.SHA256, u.Path, db.ts(u.CreatedAt), u.Data, u.ConversationID)
	if err != nil {
		return store.Upload{}, fmt.Errorf("creating upload: %w", db.classify(err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return store.Upload{}, fmt.Errorf("creating upload: %w", err)
	} else if n == 0 {
		return store.Upload{}, fmt.Errorf("creating upload: conversation %q: %w", u.ConversationID, store.ErrNotFound)
	}
	u.Data = nil
	return u, nil
}

// GetUpload implements [store.Uploads].
func (db *DB) GetUpload(ctx context.Context, id string) (store.Upload, error) {
	var u store.Upload
	err := db.r.QueryRowContext(ctx, `SELECT `+uploadCols+`, data FROM uploads WHERE id = ?`, id).
		Scan(&u.ID, &u.ConversationID, &u.UserID, &u.Name, &u.MIMEType, &u.Size, &u.SHA256, &u.Path, tsCol{&u.CreatedAt}, &u.Data)
	if err != nil {
		return store.Upload{}, fmt.Errorf("getting upload: %w", notFound(err, "no such upload"))
	}
	return u, nil
}

// ListUploads implements [store.Uploads].
func (db *DB) ListUploads(ctx context.Context, conversationID string) ([]store.Upload, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+uploadCols+` FROM uploads WHERE conversation_id = ? ORDER BY created_at, id`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("listing uploads: %w", err)
	}
	defer rows.Close()
	var out []store.Upload
	for rows.Next() {
		var u store.Upload
		if err := rows.Scan(&u.ID, &u.ConversationID, &u.UserID, &u.Name, &u.MIMEType, &u.Size, &u.SHA256, &u.Path, tsCol{&u.CreatedAt}); err != nil {
			return nil, fmt.Errorf("listing uploads: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing uploads: %w", err)
	}
	return out, nil
}
