package app

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
)

// replicas is what only a store that several Switchboard processes share
// offers (PostgreSQL), as one value the store opener ([App.openStore])
// returns beside the store: nil when one process holds the store (SQLite). Every part that
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

// postgresReplicas is the replicas capability of a PostgreSQL store. The
// store opener calls it with the database it opened, so no part asks a
// store for its type to learn what it offers.
func postgresReplicas(pg *postgres.DB) *replicas {
	return &replicas{
		limiter: func(kind string, rate float64, burst int) gate.Limiter {
			return pg.NewLimiter(kind, rate, burst)
		},
		pruneLimits: pg.PruneRateLimits,
		feed:        pg,
		answers:     pg,
	}
}
