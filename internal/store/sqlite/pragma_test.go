package sqlite

import (
	"path/filepath"
	"testing"
)

// TestPragmas checks that every connection runs with the settings the
// package documents; the DSN is the only place they are set.
func TestPragmas(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		name   string
		pragma string
		want   string
	}{
		{"writer journal", "journal_mode", "wal"},
		{"writer sync", "synchronous", "1"},
		{"writer fk", "foreign_keys", "1"},
		{"writer busy", "busy_timeout", "5000"},
		{"writer query_only", "query_only", "0"},
	} {
		var got string
		if err := db.w.QueryRowContext(t.Context(), "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: PRAGMA %s = %s, want %s", tc.name, tc.pragma, got, tc.want)
		}
	}
	var ro string
	if err := db.r.QueryRowContext(t.Context(), "PRAGMA query_only").Scan(&ro); err != nil || ro != "1" {
		t.Errorf("reader query_only = %q, %v; want 1", ro, err)
	}
	if _, err := db.r.ExecContext(t.Context(), "DELETE FROM users"); err == nil {
		t.Error("a reader connection wrote")
	}
}
