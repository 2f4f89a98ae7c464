package mcphost_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Interop with servers nobody here wrote: the official TypeScript SDK's
// server (testdata/npm/servers/noisy.mjs is a few lines on top of it) and
// the npm reference servers.

const sdkPkg = "@modelcontextprotocol/sdk"

// noisyServer is the configuration of testdata/npm/servers/noisy.mjs.
func noisyServer(tb testing.TB) mcphost.ServerConfig {
	p := requireNPM(tb, sdkPkg)
	return mcphost.ServerConfig{
		Name: "noisy", Command: p.node,
		Args: []string{filepath.Join(filepath.Dir(p.root), "servers", "noisy.mjs")},
	}
}

// bigText is what noisy.mjs's big tool and big:// resource return for n.
func bigText(n int) string {
	line := `a line of "quoted" text \ with a backslash and e` + "\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// TestNPMNoisyServer checks that a server on the TypeScript SDK that prints
// a banner, a JSON log line and console.log output on stdout works, and
// that those lines are counted and kept.
func TestNPMNoisyServer(t *testing.T) {
	t.Parallel()
	pool := startPool(t, []mcphost.ServerConfig{noisyServer(t)}, npmOptions())
	st := statusOf(t, pool, "noisy")
	if st.State != mcphost.StateReady {
		t.Fatalf("noisy server is %s: %s; stderr %q", st.State, st.LastError, st.Stderr)
	}
	for i := range 5 {
		res, err := call(t, findTool(t, pool, "echo"), map[string]any{"message": fmt.Sprint(i)})
		if err != nil || res.Text() != fmt.Sprintf("Echo: %d", i) {
			t.Fatalf("echo %d: %v, %v", i, res, err)
		}
	}
	st = statusOf(t, pool, "noisy")
	// Banner, log line and "connected" at start, then "handling echo" per call.
	if st.NonProtocolLines != 3+5 || st.Restarts != 0 {
		t.Errorf("NonProtocolLines %d, restarts %d; want 8 and 0", st.NonProtocolLines, st.Restarts)
	}
	for _, want := range []string{
		"[stdout] noisy-server 1.0 starting on stdio...",
		`[stdout] {"level":"info","msg":"loading tools"}`,
		"[stdout] handling echo",
	} {
		if !slices.Contains(st.Stderr, want) {
			t.Errorf("stderr tail %q lacks %q", st.Stderr, want)
		}
	}
}

// TestNPMHugeResult reads a 50 MiB tool result (and the same again as
// structured content, as server-filesystem sends it) from the TypeScript
// SDK's server, which writes "result" before "id", so the id of the message
// is known only at its end. It runs under -race too: the bytes are moved by
// bulk copies and scans, not per-byte Go code.
func TestNPMHugeResult(t *testing.T) {
	t.Parallel()
	pool := startPool(t, []mcphost.ServerConfig{noisyServer(t)}, npmOptions())
	if st := statusOf(t, pool, "noisy"); st.State != mcphost.StateReady {
		t.Fatalf("noisy server is %s: %s", st.State, st.LastError)
	}
	dir := t.TempDir()
	reg := tools.NewRegistry(&tools.RegistryOptions{OutputDir: dir})
	dir = tools.UserOutputDir(dir, "") // where the local user's outputs go
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "noisy"}, pool.Tools())
	const size = 50 << 20
	want := bigText(size)

	start := time.Now()
	res, err := reg.Call(t.Context(), "noisy__big", &tools.CallRequest{Arguments: json.RawMessage(fmt.Sprintf(`{"bytes":%d,"structured":true}`, size))})
	if err != nil || res.IsError {
		t.Fatalf("50 MiB result: %v, %.300q", err, resultText(res))
	}
	t.Logf("50 MiB text plus 50 MiB structured content in %v", time.Since(start))
	ids := slices.Compact(outputIDPattern.FindAllString(res.Text(), -1))
	if len(res.Text()) > 70<<10 || len(ids) != 2 || !strings.HasPrefix(res.Text(), want[:1000]) {
		t.Fatalf("the model would see %d bytes, output IDs %q: %.300q", len(res.Text()), ids, res.Text())
	}
	if b, err := os.ReadFile(filepath.Join(dir, ids[0]+".txt")); err != nil || string(b) != want {
		t.Errorf("stored text: %d bytes, %v; want the %d bytes the server sent", len(b), err, size)
	}
	// The structured content is kept as the server wrote it: the text as a
	// JSON string. Decoding 50 MiB of JSON under -race takes long, so check
	// its length (each quote, backslash and newline escaped) and its ends.
	b, err := os.ReadFile(filepath.Join(dir, ids[1]+".txt"))
	escaped := len(want) + strings.Count(want, `"`) + strings.Count(want, `\`) + strings.Count(want, "\n")
	head, _ := json.Marshal(want[:100])
	tail, _ := json.Marshal(want[len(want)-100:])
	if err != nil || len(b) != len(`{"content":""}`)+escaped ||
		!bytes.HasPrefix(b, append([]byte(`{"content":`), head[:len(head)-1]...)) || !bytes.HasSuffix(b, append(tail[1:], '}')) {
		t.Errorf("stored structured content: %d bytes (%v), want %d: %.60q ... %q; want {\"content\":<the text>}", len(b), err, len(`{"content":""}`)+escaped, b, b[max(0, len(b)-40):])
	}

	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("output directory holds %d files, want the 2 of the result", len(ents))
	}
}

// TestNPMResultOverTheCap checks that a result over the hard cap, from a
// server that writes its id last, is a tool error naming the limit, leaves
// no output file, and leaves the server running.
func TestNPMResultOverTheCap(t *testing.T) {
	t.Parallel()
	opts := npmOptions()
	opts.MaxMessageBytes = 2 << 20
	pool := startPool(t, []mcphost.ServerConfig{noisyServer(t)}, opts)
	dir := t.TempDir()
	reg := tools.NewRegistry(&tools.RegistryOptions{OutputDir: dir})
	dir = tools.UserOutputDir(dir, "") // where the local user's outputs go
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "noisy"}, pool.Tools())
	for _, args := range []string{`{"bytes":3000000}`, `{"bytes":1500000,"structured":true}`} {
		res, err := reg.Call(t.Context(), "noisy__big", &tools.CallRequest{Arguments: json.RawMessage(args)})
		if err != nil || !res.IsError || !strings.Contains(res.Text(), "larger than 2 MiB") {
			t.Fatalf("%s over a 2 MiB cap: %v, %.300q; want a tool error naming the limit", args, err, resultText(res))
		}
	}
	if res, err := call(t, findTool(t, pool, "echo"), map[string]any{"message": "still here"}); err != nil || res.Text() != "Echo: still here" {
		t.Errorf("echo after the oversized results: %v, %v", res, err)
	}
	if st := statusOf(t, pool, "noisy"); st.Restarts != 0 || st.State != mcphost.StateReady {
		t.Errorf("status %+v; want ready, never restarted", st)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("output directory holds %d files; a discarded result must leave none", len(ents))
	}
}

// TestNPMLongAnswersSideBySide reads long tool results (the host's own
// path) and long resources (the SDK session's) from one TypeScript server
// at the same time: both write the id last, so the reader cannot tell them
// apart until each message ends.
func TestNPMLongAnswersSideBySide(t *testing.T) {
	t.Parallel()
	pool := startPool(t, []mcphost.ServerConfig{noisyServer(t)}, npmOptions())
	if st := statusOf(t, pool, "noisy"); st.State != mcphost.StateReady {
		t.Fatalf("noisy server is %s: %s", st.State, st.LastError)
	}
	reg := tools.NewRegistry(&tools.RegistryOptions{OutputDir: t.TempDir()})
	reg.Set(tools.Source{Kind: tools.KindMCP, Server: "noisy"}, pool.Tools())
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 10 {
		n := 100_000 + i*37_000
		wg.Go(func() {
			res, err := reg.Call(t.Context(), "noisy__big", &tools.CallRequest{Arguments: json.RawMessage(fmt.Sprintf(`{"bytes":%d}`, n))})
			switch {
			case err != nil:
				errs <- fmt.Errorf("tool result of %d bytes: %w", n, err)
			case !strings.Contains(res.Text(), fmt.Sprintf("%d bytes cut", n-65536)):
				errs <- fmt.Errorf("tool result of %d bytes: %.200q", n, res.Text())
			}
		})
		wg.Go(func() {
			rc, err := pool.ReadResource(t.Context(), "noisy", fmt.Sprintf("big://text/%d", n))
			switch {
			case err != nil:
				errs <- fmt.Errorf("resource of %d bytes: %w", n, err)
			case len(rc) != 1 || rc[0].Text != bigText(n):
				errs <- fmt.Errorf("resource of %d bytes came back wrong", n)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestNPMFilesystemKeepsItsDirectories starts server-filesystem from a
// directory other than the one it is given: without configured roots the
// host offers none, so the server keeps its argument; with roots, it
// switches to them, as the MCP roots protocol says it does.
func TestNPMFilesystemKeepsItsDirectories(t *testing.T) {
	t.Parallel()
	p := requireNPM(t, filesystemPkg)
	allowed, elsewhere, configured := t.TempDir(), t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(allowed, "x.txt"), filepath.Join(configured, "y.txt")} {
		if err := os.WriteFile(f, []byte("content of "+filepath.Base(f)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fs := func(roots []string) mcphost.ServerConfig {
		return mcphost.ServerConfig{
			Name: "fs", Command: p.node, Dir: elsewhere, Roots: roots,
			Args: []string{p.script(filesystemPkg, "dist/index.js"), allowed},
		}
	}
	read := func(t *testing.T, pool *mcphost.Pool, path string) *tools.Result {
		t.Helper()
		res, err := call(t, findTool(t, pool, "read_text_file"), map[string]any{"path": path})
		if err != nil {
			t.Fatalf("read_text_file %s: %v", path, err)
		}
		return res
	}
	allowedDirs := func(t *testing.T, pool *mcphost.Pool) string {
		res, err := call(t, findTool(t, pool, "list_allowed_directories"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Text()
	}

	t.Run("no roots configured", func(t *testing.T) {
		t.Parallel()
		pool := startPool(t, []mcphost.ServerConfig{fs(nil)}, npmOptions())
		if res := read(t, pool, filepath.Join(allowed, "x.txt")); res.IsError || res.Text() != "content of x.txt" {
			t.Errorf("reading a file in the server's own directory: %q (IsError %v)", res.Text(), res.IsError)
		}
		// Give a roots/list the server might send time to arrive, then
		// check that the server still has its own directory only.
		time.Sleep(200 * time.Millisecond)
		if dirs := allowedDirs(t, pool); !strings.Contains(dirs, allowed) || strings.Contains(dirs, elsewhere) {
			t.Errorf("allowed directories %q; want only %s", dirs, allowed)
		}
		if st := statusOf(t, pool, "fs"); len(st.Roots) != 0 || st.RootsRequests != 0 {
			t.Errorf("status roots %q, %d requests; want none offered, none asked", st.Roots, st.RootsRequests)
		}
	})
	t.Run("roots configured", func(t *testing.T) {
		t.Parallel()
		pool := startPool(t, []mcphost.ServerConfig{fs([]string{configured})}, npmOptions())
		// The server asks for roots after the handshake and swaps its
		// directories when the answer arrives.
		if !mcptest.Poll(npmWait, func() bool { return strings.Contains(allowedDirs(t, pool), configured) }) {
			t.Fatalf("the server never took the configured root; allowed: %q", allowedDirs(t, pool))
		}
		if res := read(t, pool, filepath.Join(configured, "y.txt")); res.IsError || res.Text() != "content of y.txt" {
			t.Errorf("reading a file under the configured root: %q", res.Text())
		}
		if res := read(t, pool, filepath.Join(allowed, "x.txt")); !res.IsError {
			t.Errorf("the server still reads its argument's directory after taking roots: %q", res.Text())
		}
		if st := statusOf(t, pool, "fs"); len(st.Roots) != 1 || st.Roots[0] != "file://"+configured || st.RootsRequests == 0 {
			t.Errorf("status roots %q, %d requests; want file://%s, asked", st.Roots, st.RootsRequests, configured)
		}
	})
}
