package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/store"
)

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the migrations/NNNN_name.sql files of fsys sorted
// by version, refusing a version used twice. Versions may skip numbers:
// numbers are reserved per change, and a build may lack some of them.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	files, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("listing migrations: %w", err)
	}
	var ms []migration
	for _, f := range files {
		base := strings.TrimPrefix(f, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", base)
		}
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("reading migration %s: %w", base, err)
		}
		ms = append(ms, migration{version: v, name: base, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s have the same version; give one a new number", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// Migrate applies, in tx, the migrations/NNNN_name.sql files of fsys that
// the database lacks, each with its schema_migrations row (version, name,
// applied_at). The caller creates schema_migrations, makes sure no other
// process migrates meanwhile, and commits tx. Migrate refuses, with an error
// wrapping [store.ErrSchemaTooNew], a database migrated by a newer
// Switchboard.
func Migrate(ctx context.Context, tx *sql.Tx, fsys fs.FS, d Dialect) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	c := conn{tx, &d}
	applied, current, err := appliedVersions(ctx, c)
	if err != nil {
		return err
	}
	latest := 0
	if len(ms) > 0 {
		latest = ms[len(ms)-1].version
	}
	if current > latest {
		return fmt.Errorf("database has schema version %d but this Switchboard knows versions up to %d; upgrade Switchboard or point it at another database: %w",
			current, latest, store.ErrSchemaTooNew)
	}
	// Every known migration the database lacks runs, also one numbered
	// below the highest applied: a database migrated by a build that
	// skipped a number gets it when a build has it.
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("applying migration %s: %w", m.name, err)
		}
		if _, err := c.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, d.Time(now())); err != nil {
			return fmt.Errorf("recording migration %s: %w", m.name, err)
		}
	}
	return nil
}

// appliedVersions returns the versions schema_migrations records and the
// highest of them.
func appliedVersions(ctx context.Context, c conn) (map[int]bool, int, error) {
	rows, err := c.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, 0, fmt.Errorf("reading schema versions: %w", err)
	}
	defer rows.Close()
	applied := map[int]bool{}
	current := 0
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, 0, fmt.Errorf("reading schema versions: %w", err)
		}
		applied[v] = true
		current = max(current, v)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("reading schema versions: %w", err)
	}
	return applied, current, nil
}
