package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestReadToolOutput(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, &Options{OutputDir: dir})
	const id = "out_0190f3c2-7d1e-7c4a-9b2e-3f1a2b3c4d5e"
	dir = tools.UserOutputDir(dir, "")                                    // the local user's, whom e's calls act for
	write(t, filepath.Join(dir, id+".txt"), "hello world\nsecond line\n") // 24 bytes
	write(t, filepath.Join(dir, "utf8.txt"), "aé€b")                      // 1+2+3+1 bytes
	write(t, filepath.Join(dir, "empty.txt"), "")
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"whole", map[string]any{"id": id}, "hello world\nsecond line\n[bytes 0-24 of 24; end of output]"},
		{"first page", map[string]any{"id": id, "limit": 5}, "hello\n[bytes 0-5 of 24; call read_tool_output with offset=5 for more]"},
		{"middle page", map[string]any{"id": id, "offset": 6, "limit": 5}, "world\n[bytes 6-11 of 24; call read_tool_output with offset=11 for more]"},
		{"last page", map[string]any{"id": id, "offset": 12, "limit": 100}, "second line\n[bytes 12-24 of 24; end of output]"},
		{"page ends inside a rune", map[string]any{"id": "utf8", "limit": 5}, "aé\n[bytes 0-3 of 7; call read_tool_output with offset=3 for more]"},
		{"next page", map[string]any{"id": "utf8", "offset": 3, "limit": 5}, "€b\n[bytes 3-7 of 7; end of output]"},
		{"offset inside a rune", map[string]any{"id": "utf8", "offset": 2}, "€b\n[bytes 2-7 of 7; end of output]"},
		{"empty", map[string]any{"id": "empty"}, "[bytes 0-0 of 0; end of output]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.ok(t, nameReadToolOutput, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("read_tool_output mismatch (-want +got):\n%s", diff)
			}
		})
	}

	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"traversal", map[string]any{"id": "../../etc/passwd"}, `id "../../etc/passwd" is malformed`},
		{"slash", map[string]any{"id": "a/b"}, "is malformed"},
		{"dot", map[string]any{"id": "a.b"}, "is malformed"},
		{"too long", map[string]any{"id": strings.Repeat("a", 81)}, "is malformed"},
		{"empty id", map[string]any{"id": ""}, "is malformed"},
		{"unknown", map[string]any{"id": "out_nope"}, `no stored output with id "out_nope" among yours; it may have expired, the id was mistyped, or it is another user's output`},
		{"symlink out of the store", map[string]any{"id": "link"}, `opening stored output "link": openat link.txt: path escapes from parent`},
		{"offset past the end", map[string]any{"id": id, "offset": 24}, `offset 24 is past the end of output "` + id + `", which is 24 bytes`},
		{"negative offset", map[string]any{"id": id, "offset": -1}, "offset -1 is negative"},
		{"limit too large", map[string]any{"id": id, "limit": 300000}, "limit 300000 is out of range; use 1 to 262144"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(t, nameReadToolOutput, tt.args, tt.want)
		})
	}
}

func TestReadToolOutputMissingStore(t *testing.T) {
	e := newEnv(t, &Options{OutputDir: filepath.Join(t.TempDir(), "not-yet")})
	e.fail(t, nameReadToolOutput, map[string]any{"id": "out_x"}, `no stored output with id "out_x"`)
}

// TestReadToolOutputOnlyTheCallersOwn: an output is filed under the user
// whose call made it, and read_tool_output reads only the outputs of the
// user its own call acts for. Another user who knows (or guesses) the ID,
// the local user included, gets the same "not found" as for an ID that
// never existed, so the answer does not even confirm that it exists.
func TestReadToolOutputOnlyTheCallersOwn(t *testing.T) {
	dir := t.TempDir()
	reg := tools.NewRegistry(&tools.RegistryOptions{ResultLimit: 400, OutputDir: dir})
	big := &tools.Func{
		Spec: tools.Info{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Run: func(context.Context, *tools.CallRequest) (*tools.Result, error) {
			return tools.TextResult("alice's secret " + strings.Repeat("x", 1000)), nil
		},
	}
	ts, err := New(&Options{Roots: []string{t.TempDir()}, OutputDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, append(ts, big))

	alice := tools.WithUser(t.Context(), "u-alice")
	res, err := reg.Call(alice, "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`out_[0-9a-f-]{36}`).FindString(res.Text())
	if m == "" {
		t.Fatalf("no output ID in %q", res.Text())
	}
	read := func(ctx context.Context) *tools.Result {
		t.Helper()
		res, err := reg.Call(ctx, nameReadToolOutput, &tools.CallRequest{Arguments: json.RawMessage(`{"id":"` + m + `","limit":100}`)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if got := read(alice); got.IsError || !strings.Contains(got.Text(), "alice's secret") {
		t.Fatalf("alice reading her own output: %s", got.Text())
	}
	for name, ctx := range map[string]context.Context{
		"another user":            tools.WithUser(t.Context(), "u-bob"),
		"the local user":          t.Context(),
		"a user named by a path":  tools.WithUser(t.Context(), "../user-"+filepath.Base(tools.UserOutputDir(dir, "u-alice"))),
		"a user with an empty ID": tools.WithUser(t.Context(), ""),
	} {
		got := read(ctx)
		if !got.IsError || strings.Contains(got.Text(), "secret") || !strings.Contains(got.Text(), "another user's output") {
			t.Errorf("%s reading alice's output %s = %q; want the not-found error", name, m, got.Text())
		}
	}
	// The file sits in alice's directory, away from everyone else's.
	if _, err := os.Stat(filepath.Join(tools.UserOutputDir(dir, "u-alice"), m+".txt")); err != nil {
		t.Errorf("alice's output is not in her directory: %v", err)
	}
}
