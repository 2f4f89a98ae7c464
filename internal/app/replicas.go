package app

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
)

// replicas is what only a store that several Switchboard processes share
// offers (PostgreSQL), as one value the store opener returns beside the
// store: nil when one process holds the store (SQLite). Every part that
// behaves differently on replicas asks for it, instead of asserting the
// store's type.
type replicas struct {
	// limiter counts a limit in the database, so that N replicas allow
	// the limit and not N times it.
	limiter func(kind string, ratePerSecond float64, burst int) gate.Limiter
	// pruneLimits drops the counts of windows that ended before a time.
	pruneLimits func(ctx context.Context, before time.Time) (int64, error)
	// feed reaches every process on the database: a decision or a user
	// added on one replica wakes the others.
	feed store.Changes
	// answers relays MCP clients' answers to approval questions to the
	// replica that asked, so that sessions need no sticky routing.
	answers store.MCPAnswers
}

// replicasOf returns the replicas capability of st, nil when st is not
// shared by several processes.
func replicasOf(st store.Store) *replicas {
	pg, ok := st.(*postgres.DB)
	if !ok {
		return nil
	}
	return &replicas{
		limiter: func(kind string, rate float64, burst int) gate.Limiter {
			return pg.NewLimiter(kind, rate, burst)
		},
		pruneLimits: pg.PruneRateLimits,
		feed:        pg,
		answers:     pg,
	}
}
