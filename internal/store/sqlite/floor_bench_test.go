package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// BenchmarkFloor is the floor under one audited call on SQLite: the same
// INSERT and UPDATE the store makes, prepared, each committed on its own,
// on the writer connection of a store with production settings, and
// nothing else, under a context that cannot end (one that can costs the
// driver a goroutine per statement). It is what a lone caller's two
// commits cost; group commits under load go below it by sharing them.
func BenchmarkFloor(b *testing.B) {
	db, err := Open(b.Context(), filepath.Join(b.TempDir(), "floor.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ins, err := db.w.PrepareContext(b.Context(), `INSERT INTO audit (id, time, user_name, conversation_id, agent, run_id, call_id, tool, server, arguments, approval, outcome, error, duration_ms, result_bytes, finished_at, instance)
		VALUES (?, ?, 'ann', 'c', '', 'r', 'call_1', 'files__read_file', 'files', '{"path":"docs/readme.md","offset":0,"limit":200}', 'not-required', 'running', '', 0, 0, NULL, 'floor')`)
	if err != nil {
		b.Fatal(err)
	}
	defer ins.Close()
	upd, err := db.w.PrepareContext(b.Context(), `UPDATE audit SET outcome = 'ok', duration_ms = 1, result_bytes = 512, finished_at = ? WHERE id = ? AND outcome = 'running'`)
	if err != nil {
		b.Fatal(err)
	}
	defer upd.Close()
	storetest.BenchCallers(b, 1, func() {
		id := store.NewID()
		if _, err := ins.ExecContext(context.Background(), id, time.Now().UnixMicro()); err != nil {
			b.Error(err)
			return
		}
		if _, err := upd.ExecContext(context.Background(), time.Now().UnixMicro(), id); err != nil {
			b.Error(err)
		}
	})
}
