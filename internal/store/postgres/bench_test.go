package postgres_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) store.Store {
		db, err := postgres.Open(b.Context(), schemaDSN(b), nil)
		if err != nil {
			b.Fatal(err)
		}
		return db
	})
}
