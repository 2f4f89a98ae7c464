package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// userKey marks a context with the user its tool calls act for.
type userKey struct{}

// WithUser returns a copy of ctx whose tool calls act for the user with the
// store ID id ("" is the local user: the person who started Switchboard, at
// the terminal, on stdio, or anonymously on loopback). Every surface that
// authenticates a caller sets it before calling; what a call keeps (its
// stored outputs) is filed under that user and only that user reads it
// back (see [OutputStore]).
func WithUser(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, userKey{}, id)
}

// UserOf returns the store ID of the user ctx's tool calls act for: the one
// [WithUser] set, or "" (the local user) when none was.
func UserOf(ctx context.Context) string {
	id, _ := ctx.Value(userKey{}).(string)
	return id
}

// UserOutputDir is the directory under the output directory dir that holds
// the stored outputs of the user with the store ID id: "local" for the local
// user, and for a stored user a name derived from its ID by SHA-256, so that
// no ID, whatever its characters, can name a path outside dir or another
// user's directory.
func UserOutputDir(dir, id string) string {
	if dir == "" {
		return ""
	}
	if id == "" {
		return filepath.Join(dir, "local")
	}
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(dir, "user-"+hex.EncodeToString(sum[:16]))
}
