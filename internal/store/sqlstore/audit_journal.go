package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

// withJournals merges into list (the table's page, newest first) the
// records begun in journals whose rows the table does not hold, and
// returns the newest limit of them all.
func (db *DB) withJournals(ctx context.Context, list, begun []store.AuditRecord, limit int) ([]store.AuditRecord, error) {
	seen := make(map[string]bool, len(list)+len(begun))
	for _, r := range list {
		seen[r.ID] = true
	}
	var (
		ask  []string
		more []store.AuditRecord
	)
	for _, r := range begun {
		if !seen[r.ID] { // a journal and its rewrite may both hold it
			seen[r.ID] = true
			ask = append(ask, r.ID)
			more = append(more, r)
		}
	}
	inTable, err := db.auditIDs(ctx, ask)
	if err != nil {
		return nil, fmt.Errorf("listing audit records: %w", err)
	}
	for _, r := range more {
		if !inTable[r.ID] {
			list = append(list, r)
		}
	}
	slices.SortFunc(list, func(a, b store.AuditRecord) int {
		return cmp.Or(b.Time.Compare(a.Time), strings.Compare(b.ID, a.ID))
	})
	return list[:min(len(list), limit)], nil
}

// auditIDs returns which of ids the table holds.
func (db *DB) auditIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	found := make(map[string]bool, len(ids))
	const chunk = 500 // well under every database's limit on parameters
	for part := range slices.Chunk(ids, chunk) {
		if err := db.findAuditIDs(ctx, part, found); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// findAuditIDs sets found[id] for each of ids the table holds.
func (db *DB) findAuditIDs(ctx context.Context, ids []string, found map[string]bool) error {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	q := `SELECT id FROM audit WHERE id IN (?` + strings.Repeat(`, ?`, len(ids)-1) + `)`
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		found[id] = true
	}
	return rows.Err()
}

// interruptedAuditQuery records a dead process's journaled call as
// interrupted, unless its finish reached the table.
const interruptedAuditQuery = `INSERT INTO audit (` + auditCols + `, instance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'interrupted', ?, 0, 0, ?, ?, ?)
	ON CONFLICT (id) DO NOTHING`

// interruptedError is the error of a call its process did not see end.
const interruptedError = "Switchboard stopped before the call finished"

// interruptJournaled writes recs, a dead instance's journaled calls, as
// interrupted, in one transaction, and returns how many were not in the
// table yet.
func (db *DB) interruptJournaled(ctx context.Context, instance string, recs []store.AuditRecord) (int64, error) {
	var total int64
	err := db.write(ctx, func(tx conn) error {
		at := db.ts(now())
		for _, r := range recs {
			res, err := tx.ExecContext(ctx, interruptedAuditQuery, r.ID, db.ts(r.Time), r.User, r.ConversationID, r.Agent, r.RunID,
				r.CallID, r.Tool, r.Server, db.argsCol(r.Arguments), string(r.Approval), interruptedError, at, r.UserID, instance)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			total += n
		}
		return nil
	})
	return total, err
}
