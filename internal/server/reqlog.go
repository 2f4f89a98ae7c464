package server

import (
	"log/slog"
	"sync/atomic"
)

// reqLog is a request's logger, built on first use: most requests log
// nothing (a tool call through /mcp at the default level), and building
// it eagerly, with the request id and the user as attributes, was 2% of
// the gateway's CPU per call (docs/BENCHMARKS.md, "The hot path").
type reqLog struct {
	base     *slog.Logger
	id, user string
	built    atomic.Pointer[slog.Logger]
}

// logger returns the request's logger, with its id and, once known, its
// user. Safe for concurrent use: two first uses may each build it, and
// either result is the same logger.
func (l *reqLog) logger() *slog.Logger {
	if lg := l.built.Load(); lg != nil {
		return lg
	}
	args := []any{logKeyRequestID, l.id}
	if l.user != "" {
		args = append(args, logKeyUser, l.user)
	}
	lg := l.base.With(args...)
	l.built.Store(lg)
	return lg
}
