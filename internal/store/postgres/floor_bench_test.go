package postgres_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// BenchmarkFloor is the floor under one audited call on PostgreSQL: the
// same INSERT and UPDATE the store makes, prepared, each committed on its
// own (one round trip and one flush each), through pgx's database/sql
// driver on a schema the store migrated, and nothing else. It is what a lone caller's two commits cost; group commits under
// load go below it by sharing them.
func BenchmarkFloor(b *testing.B) {
	dsn := schemaDSN(b)
	s, err := postgres.Open(b.Context(), dsn, nil)
	if err != nil {
		b.Fatal(err)
	}
	_ = s.Close() // it made the schema
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ins, err := db.PrepareContext(b.Context(), `INSERT INTO audit (id, time, user_name, conversation_id, agent, run_id, call_id, tool, server, arguments, approval, outcome, error, duration_ms, result_bytes, finished_at, instance)
		VALUES ($1, $2, 'ann', 'c', '', 'r', 'call_1', 'files__read_file', 'files', '{"path":"docs/readme.md","offset":0,"limit":200}', 'not-required', 'running', '', 0, 0, NULL, 'floor')`)
	if err != nil {
		b.Fatal(err)
	}
	defer ins.Close()
	upd, err := db.PrepareContext(b.Context(), `UPDATE audit SET outcome = 'ok', duration_ms = 1, result_bytes = 512, finished_at = $1 WHERE id = $2 AND outcome = 'running'`)
	if err != nil {
		b.Fatal(err)
	}
	defer upd.Close()
	storetest.BenchCallers(b, 1, func() {
		id := store.NewID()
		if _, err := ins.ExecContext(context.Background(), id, time.Now()); err != nil {
			b.Error(err)
			return
		}
		if _, err := upd.ExecContext(context.Background(), time.Now(), id); err != nil {
			b.Error(err)
		}
	})
}
