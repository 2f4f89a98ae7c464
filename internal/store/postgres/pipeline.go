package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/switchboard-mcp/switchboard/internal/store/sqlstore"
)

// pipeline runs stmts as one pgx batch: every statement goes to the server
// in one write and runs in one implicit transaction, committed at its end,
// so a group commit of N audit records costs one round trip rather than
// N+2 (BEGIN, each statement, COMMIT). pgx prepares each query once per
// connection and keeps it (its statement cache), so the hot writes are
// parsed once there too.
func pipeline(ctx context.Context, db *sql.DB, stmts []sqlstore.Stmt) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("taking a connection: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", driverConn)
		}
		var b pgx.Batch
		for _, s := range stmts {
			b.Queue(s.Query, s.Args...)
		}
		res := c.Conn().SendBatch(ctx, &b)
		for i := range stmts {
			tag, err := res.Exec()
			if err != nil {
				_ = res.Close()
				return fmt.Errorf("running statement %d of %d: %w", i+1, len(stmts), err)
			}
			stmts[i].Rows = tag.RowsAffected()
		}
		// Close reads to the end of the batch: the commit's answer, which
		// the server sends once the transaction is on disk.
		if err := res.Close(); err != nil {
			return fmt.Errorf("committing: %w", err)
		}
		return nil
	})
}
