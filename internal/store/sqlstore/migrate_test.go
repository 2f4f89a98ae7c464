package sqlstore

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestLoadMigrations(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name    string
		files   fstest.MapFS
		want    []string // names in order
		wantErr string
	}{
		{name: "none", files: fstest.MapFS{}},
		{
			name: "sorted by number, not name",
			files: fstest.MapFS{
				"migrations/10_j.sql":     file("j"),
				"migrations/0002_b.sql":   file("b"),
				"migrations/1_a.sql":      file("a"),
				"migrations/3_c.sql":      file("c"),
				"migrations/4_d.sql":      file("d"),
				"migrations/5_e.sql":      file("e"),
				"migrations/6_f.sql":      file("f"),
				"migrations/7_g.sql":      file("g"),
				"migrations/8_h.sql":      file("h"),
				"migrations/9_i.sql":      file("i"),
				"migrations/README.txt":   file("ignored"),
				"elsewhere/0011_x.sql":    file("ignored"),
				"migrations/sub/0_no.sql": file("ignored"),
			},
			want: []string{"1_a.sql", "0002_b.sql", "3_c.sql", "4_d.sql", "5_e.sql", "6_f.sql", "7_g.sql", "8_h.sql", "9_i.sql", "10_j.sql"},
		},
		{name: "gap", files: fstest.MapFS{"migrations/0001_a.sql": file("a"), "migrations/0003_c.sql": file("c")}, want: []string{"0001_a.sql", "0003_c.sql"}},
		{name: "same version", files: fstest.MapFS{"migrations/0002_a.sql": file("a"), "migrations/2_b.sql": file("b")}, wantErr: "the same version"},
		{name: "no number", files: fstest.MapFS{"migrations/init.sql": file("a")}, wantErr: "must start with a positive number"},
		{name: "zero", files: fstest.MapFS{"migrations/0000_a.sql": file("a")}, wantErr: "must start with a positive number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := loadMigrations(tc.files)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("loadMigrations() error = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, m := range ms {
				got = append(got, m.name)
				if i > 0 && m.version <= ms[i-1].version {
					t.Errorf("migration %s has version %d, not above %d", m.name, m.version, ms[i-1].version)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("loadMigrations() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConnPrepare(t *testing.T) {
	d := Dialect{
		Rebind: func(q string) string { return strings.ReplaceAll(q, "?", "$") },
		Args:   func(args []any) []any { return append([]any{"first"}, args...) },
	}
	for _, tc := range []struct {
		name      string
		d         Dialect
		query     string
		args      []any
		wantQuery string
		wantArgs  []any
	}{
		{name: "nil funcs leave both", query: "a = ?", args: []any{1}, wantQuery: "a = ?", wantArgs: []any{1}},
		{name: "dialect rewrites both", d: d, query: "a = ?", args: []any{1}, wantQuery: "a = $", wantArgs: []any{"first", 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, args := conn{d: &tc.d}.prepare(tc.query, tc.args)
			if diff := cmp.Diff(tc.wantQuery, q); diff != "" {
				t.Errorf("query mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantArgs, args); diff != "" {
				t.Errorf("args mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
