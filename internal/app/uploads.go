package app

import (
	"context"
	"fmt"
	"os"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools/builtin"
)

// uploadSource is read_upload's view of the store, opened on first use:
// the built-in tools exist before the store is opened, and commands that
// never read an upload never open it.
type uploadSource struct{ a *App }

var _ builtin.UploadSource = uploadSource{}

// GetUpload implements [builtin.UploadSource].
func (u uploadSource) GetUpload(ctx context.Context, id string) (store.Upload, error) {
	st, err := u.a.Store(ctx)
	if err != nil {
		return store.Upload{}, err
	}
	return st.GetUpload(ctx, id)
}

// uploadDir returns the configured uploads directory after checking that
// no part of Switchboard's own files is there: the directory is created
// (owner and group only) when missing. Config validation already keeps it
// inside a root and off the data directory.
func (a *App) uploadDir() (string, error) {
	dir := a.cfg.Uploads.Dir
	if dir == "" {
		return "", nil
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", fmt.Errorf("creating uploads.dir: %w", err)
	}
	if a.protected != nil {
		if err := a.protected.Check(dir, true); err != nil {
			return "", fmt.Errorf("uploads.dir %s: %w; choose a directory apart from Switchboard's own files", dir, err)
		}
	}
	return dir, nil
}
