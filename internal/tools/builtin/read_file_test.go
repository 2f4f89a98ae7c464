package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadFile(t *testing.T) {
	e := newEnv(t, &Options{MaxReadBytes: 64})
	write(t, filepath.Join(e.root, "five.txt"), "one\ntwo\nthree\nfour\nfive\n")
	write(t, filepath.Join(e.root, "nonl.txt"), "a\nb")
	write(t, filepath.Join(e.root, "empty.txt"), "")
	write(t, filepath.Join(e.root, "big.txt"), strings.Repeat("0123456789abcdef\n", 10)) // 170 bytes
	write(t, filepath.Join(e.root, "long.txt"), strings.Repeat("é", 40)+"\nnext\n")      // 80-byte line
	// A rune cut by the 8 KiB sniff window is not binary.
	write(t, filepath.Join(e.root, "edge.txt"), strings.Repeat("a", sniffLen-1)+"é")
	write(t, filepath.Join(e.root, "nul.bin"), "abc\x00def")
	write(t, filepath.Join(e.root, "latin1.txt"), "caf\xe9\n")
	write(t, filepath.Join(e.root, "late-nul.txt"), strings.Repeat("x", sniffLen)+"\x00")
	if err := os.Mkdir(filepath.Join(e.root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"whole file", map[string]any{"path": "five.txt"}, "one\ntwo\nthree\nfour\nfive\n"},
		{"no final newline", map[string]any{"path": "nonl.txt"}, "a\nb"},
		{"empty", map[string]any{"path": "empty.txt"}, `["empty.txt" is empty]`},
		{
			"offset and limit",
			map[string]any{"path": "five.txt", "offset": 2, "limit": 2},
			"[lines 2-3 of 5 in \"five.txt\"]\ntwo\nthree\n[2 more lines; call read_file with offset=4]",
		},
		{
			"offset to the end",
			map[string]any{"path": "five.txt", "offset": 4},
			"[lines 4-5 of 5 in \"five.txt\"]\nfour\nfive\n",
		},
		{
			"limit past the end",
			map[string]any{"path": "nonl.txt", "limit": 10},
			"[lines 1-2 of 2 in \"nonl.txt\"]\na\nb",
		},
		{
			"last line without newline",
			map[string]any{"path": "nonl.txt", "offset": 2},
			"[lines 2-2 of 2 in \"nonl.txt\"]\nb",
		},
		{
			"size cap stops at a whole line",
			map[string]any{"path": "big.txt"},
			"[lines 1-3 of 10 in \"big.txt\"]\n" + strings.Repeat("0123456789abcdef\n", 3) +
				"[7 more lines; output stopped at the 64 B cap; call read_file with offset=4]",
		},
		{
			"size cap from an offset",
			map[string]any{"path": "big.txt", "offset": 9},
			"[lines 9-10 of 10 in \"big.txt\"]\n" + strings.Repeat("0123456789abcdef\n", 2),
		},
		{
			"a line longer than the cap",
			map[string]any{"path": "long.txt"},
			"[lines 1-1 of 2 in \"long.txt\"]\n" + strings.Repeat("é", 32) +
				"\n[line 1 is longer than 64 B and was cut; the rest of it cannot be shown; call read_file with offset=2 for the lines after it]",
		},
		{
			"rune at the sniff edge",
			map[string]any{"path": "edge.txt", "offset": 1, "limit": 1},
			"[lines 1-1 of 1 in \"edge.txt\"]\n" + strings.Repeat("a", 64) +
				"\n[line 1 is longer than 64 B and was cut; the rest of it cannot be shown; call read_file with offset=2 for the lines after it]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.ok(t, nameReadFile, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("read_file mismatch (-want +got):\n%s", diff)
			}
		})
	}

	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"NUL bytes", map[string]any{"path": "nul.bin"}, `"nul.bin" looks like a binary file (NUL bytes or invalid UTF-8 in its first 8 KiB); read_file reads text only`},
		{"invalid UTF-8", map[string]any{"path": "latin1.txt"}, "looks like a binary file"},
		{"directory", map[string]any{"path": "dir"}, `"dir" is a directory, not a file; use list_dir to see its entries`},
		{"offset past the end", map[string]any{"path": "five.txt", "offset": 6}, `offset 6 is past the end of "five.txt", which has 5 lines`},
		{"negative offset", map[string]any{"path": "five.txt", "offset": -1}, "offset and limit must be positive"},
		{"missing", map[string]any{"path": "nope.txt"}, `opening "nope.txt": no such file or directory; use list_dir to see what exists`},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			got := e.fail(t, nameReadFile, tt.args, "")
			if diff := cmp.Diff(tt.want, got); diff != "" && !strings.Contains(got, tt.want) {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// NUL bytes after the sniff window are not detected: documented.
	e.ok(t, nameReadFile, map[string]any{"path": "late-nul.txt", "limit": 1})
}

func TestReadFileDefaultCap(t *testing.T) {
	e := newEnv(t, nil)
	line := strings.Repeat("x", 1023) + "\n"
	write(t, filepath.Join(e.root, "big.txt"), strings.Repeat(line, 300)) // 300 KiB
	got := e.ok(t, nameReadFile, map[string]any{"path": "big.txt"})
	if !strings.HasPrefix(got, "[lines 1-256 of 300 in \"big.txt\"]\n") ||
		!strings.HasSuffix(got, "[44 more lines; output stopped at the 256 KiB cap; call read_file with offset=257]") {
		t.Errorf("unexpected framing: %q ... %q", got[:60], got[len(got)-100:])
	}
}
