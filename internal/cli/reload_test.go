package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// reloadProject is a `switchboard serve` process (this test binary run as
// switchboard) with its config file, and the test servers it may run.
type reloadProject struct {
	dir, config, data string
	cmd               *exec.Cmd
	stderr            *clitest.Buffer
	base              string
}

// configText renders a config with head (other sections) and the given
// servers.
func configText(head string, servers ...mcphost.ServerConfig) string {
	var b strings.Builder
	b.WriteString(head + "log:\n  level: info\nmcpServers:\n")
	for _, s := range servers {
		b.WriteString(serverYAML(s))
	}
	if len(servers) == 0 {
		b.WriteString("  {}\n")
	}
	return b.String()
}

// replaceFile writes text to path the way editors save: a new file renamed
// over the old one.
func replaceFile(t *testing.T, path, text string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".switchboard.yaml.swp")
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// pidAlive reports whether pid is a process that has not exited (a zombie
// counts as ended).
func pidAlive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// waitFor polls cond every 50 ms until it holds or timeout passes, and
// returns how long it took; it fails the test with what on timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		if cond() {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(50 * time.Millisecond) //nolint:forbidigo // polling another process
	}
}

// TestServeFollowsConfigFile is issue 22's first "done when": with a real
// serve process, a real stdio MCP server and a real MCP client session on
// /mcp, edits of the config file (and SIGHUP) add and remove servers
// while the unchanged server keeps its process and the session keeps
// working; an invalid edit is refused, says why on /readyz, and changes
// nothing.
func TestServeFollowsConfigFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to tell whether a server process ended")
	}
	keep := mcptest.StdioServer(t, "keep")
	added := mcptest.StdioServer(t, "added")
	third := mcptest.StdioServer(t, "third")

	// A model that answers in two parts and waits between them until
	// released: a turn is in flight, its SSE stream open, across an edit.
	release := make(chan struct{})
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) })
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"part one, \"},\"finish_reason\":null}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		clitest.StreamText(w, "part two")
	}))
	defer fake.Close()
	// Explicit roots: the default is the config file's directory, and
	// config check below reads a copy elsewhere.
	head := "builtin: {roots: ['" + t.TempDir() + "']}\nassistant: {router: off}\nmodels:\n  default: {provider: openai, baseURL: '" + fake.URL + "/v1', model: fake, toolMode: native}\n"

	// The config file is a link to a file in another directory: editing
	// that file makes no event where serve watches, so only SIGHUP can
	// apply the first edit.
	p := &reloadProject{dir: t.TempDir(), data: t.TempDir(), stderr: &clitest.Buffer{}}
	elsewhere := filepath.Join(t.TempDir(), "real.yaml")
	if err := os.WriteFile(elsewhere, []byte(configText(head, keep)), 0o600); err != nil {
		t.Fatal(err)
	}
	p.config = filepath.Join(p.dir, "switchboard.yaml")
	if err := os.Symlink(elsewhere, p.config); err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--config", p.config, "--data", p.data)
	p.cmd.Env = append(os.Environ(), envRunMain+"=1")
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			<-exited
			t.Error("serve did not stop on an interrupt")
		}
		for _, sc := range []mcphost.ServerConfig{keep, added, third} {
			for _, pid := range mcptest.PIDs(sc) {
				if pidAlive(pid) {
					t.Errorf("server %s: process %d outlived serve", sc.Name, pid)
				}
			}
		}
		if t.Failed() || testing.Verbose() {
			t.Logf("serve's log:\n%s", p.stderr.String())
		}
	})
	p.base = clitest.Listening(t, "serve", p.stderr, exited)

	var listChanged atomic.Int64
	client := mcp.NewClient(&mcp.Implementation{Name: "reload-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { listChanged.Add(1) },
	})
	// A 2025-11-25 session is the kind that lives on one replica and
	// gets notifications on its stream: the kind a reload must not drop.
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: p.base + "/mcp"},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	sessionID := cs.ID()
	if sessionID == "" {
		t.Fatal("a 2025-11-25 client got no session")
	}
	tools := func() []string {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatalf("tools/list on the open session: %v", err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	echo := func(tool string) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "still here"}})
		if err != nil || res.IsError {
			t.Fatalf("calling %s on the open session: %v %+v", tool, err, res)
		}
	}
	if !slices.Contains(tools(), "keep__echo") {
		t.Fatalf("keep's tools not served: %v", tools())
	}
	keepPIDs := mcptest.PIDs(keep)
	if len(keepPIDs) != 1 {
		t.Fatalf("keep started %d processes, want 1", len(keepPIDs))
	}
	readyz := func() (problems []string) {
		resp, err := http.Get(p.base + "/readyz") //nolint:noctx // a probe on loopback
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Status string   `json:"status"`
			Config []string `json:"config"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("/readyz: %d %v", resp.StatusCode, err)
		}
		return body.Config
	}

	// 1. SIGHUP applies an edit the watcher cannot see.
	if err := os.WriteFile(elsewhere, []byte(configText(head, keep, added)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, 10*time.Second, "added server's tools on /mcp after SIGHUP", func() bool {
		return slices.Contains(tools(), "added__echo")
	})
	t.Logf("a server added with SIGHUP served its tools on /mcp after %v", took.Round(time.Millisecond))
	waitFor(t, 5*time.Second, "notifications/tools/list_changed on the session", func() bool { return listChanged.Load() > 0 })
	echo("keep__echo")
	echo("added__echo")
	addedPIDs := mcptest.PIDs(added)
	if len(addedPIDs) != 1 || !pidAlive(addedPIDs[0]) {
		t.Fatalf("added server's processes: %v", addedPIDs)
	}

	// 2. An invalid edit, saved the way editors do: refused, with what is
	// wrong on /readyz; everything keeps running.
	// The edit has three problems in different sections; each is named,
	// on /readyz (which the web UI's notice shows, see internal/web's
	// testConfigNotice) and in the one log line saying it was refused.
	replaceFile(t, p.config, configText(head, keep, added)+"notAKey: 1\napprovals: {mode: sometimes}\nlimits: {toolCallsPerTurn: -3}\n")
	var problems []string
	waitFor(t, 10*time.Second, "the refused edit on /readyz", func() bool { problems = readyz(); return len(problems) > 0 })
	joined := strings.Join(problems, "\n")
	var logLine string
	for l := range strings.SplitSeq(p.stderr.String(), "\n") {
		if strings.Contains(l, "configuration edit refused") {
			logLine = l
		}
	}
	if logLine == "" {
		t.Errorf("the log does not say the edit was refused")
	}
	for _, want := range []string{"notAKey", "approvals.mode", "limits.toolCallsPerTurn"} {
		if !strings.Contains(joined, want) {
			t.Errorf("/readyz config problems do not name %s:\n%s", want, joined)
		}
		if !strings.Contains(logLine, want) {
			t.Errorf("the log line of the refusal does not name %s:\n%s", want, logLine)
		}
	}
	echo("keep__echo")
	echo("added__echo")
	if got := tools(); !slices.Contains(got, "added__echo") || !slices.Contains(got, "keep__echo") {
		t.Errorf("tools after a refused edit: %v", got)
	}

	// 3. A valid edit removes a server: its tools leave /mcp, its process
	// ends, and the refusal notice goes.
	changedBefore := listChanged.Load()
	replaceFile(t, p.config, configText(head, keep))
	waitFor(t, 10*time.Second, "removed server's tools gone from /mcp", func() bool {
		return !slices.Contains(tools(), "added__echo")
	})
	waitFor(t, 5*time.Second, "the removed server's process to end", func() bool { return !pidAlive(addedPIDs[0]) })
	if problems := readyz(); len(problems) != 0 {
		t.Errorf("/readyz still lists problems after a valid edit: %v", problems)
	}
	waitFor(t, 5*time.Second, "list_changed for the removal", func() bool { return listChanged.Load() > changedBefore })

	// 4. A turn is in flight, its stream open, when an edit written in
	// place (truncate, write) adds a server; the turn finishes after it.
	turn := startTurn(t, p.base)
	defer turn.Body.Close()
	stream := bufio.NewReader(turn.Body)
	readUntil(t, stream, "part one")
	if err := os.WriteFile(p.config, []byte(configText(head, keep, third)), 0o600); err != nil {
		t.Fatal(err)
	}
	took = waitFor(t, 10*time.Second, "third server's tools on /mcp", func() bool {
		return slices.Contains(tools(), "third__echo")
	})
	t.Logf("a server added by editing the file served its tools on /mcp after %v", took.Round(time.Millisecond))
	releaseOnce.Do(func() { close(release) })
	readUntil(t, stream, "part two")
	readUntil(t, stream, "[DONE]")

	// Through it all, the unchanged server kept its one process and the
	// session its calls.
	if got := mcptest.PIDs(keep); !slices.Equal(got, keepPIDs) || !pidAlive(keepPIDs[0]) {
		t.Errorf("unchanged server's processes: %v, want %v alive", got, keepPIDs)
	}
	echo("keep__echo")
	echo("third__echo")
	if cs.ID() != sessionID {
		t.Errorf("session %q became %q", sessionID, cs.ID())
	}
	// A client of the stateless protocol (2026-07-28) sees the same catalogue.
	latest, err := mcp.NewClient(&mcp.Implementation{Name: "reload-test-latest", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: p.base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer latest.Close()
	res, err := latest.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "third__echo") || slices.Contains(names, "added__echo") {
		t.Errorf("a new stateless client lists %v", names)
	}

	// config check compares a file with what serve applied last: a copy
	// outside the watched directory, so serve does not apply it first.
	check := filepath.Join(t.TempDir(), "check.yaml")
	if err := os.WriteFile(check, []byte(configText(head, keep, added)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, p.dir, nil, "config", "check", "--config", check, "--data", p.data)
	if !strings.Contains(r.stderr, "+ mcpServers.added") || !strings.Contains(r.stderr, "- mcpServers.third") {
		t.Errorf("config check does not show the pending diff:\n%s", r.stderr)
	}
	// serve's --addr picks its listener, not its configuration: the
	// server section is not reported as changed.
	if strings.Contains(r.stderr, "! ") {
		t.Errorf("config check reports settings changed that are not:\n%s", r.stderr)
	}
}

// startTurn starts a streamed chat completion on serve and returns the
// open response.
func startTurn(t *testing.T, base string) *http.Response {
	t.Helper()
	body := `{"model":"default","stream":true,"messages":[{"role":"user","content":"hello"}]}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("chat completion: %d %s", resp.StatusCode, b)
	}
	return resp
}

// readUntil reads the stream until a line contains want; it fails the
// test when the stream ends first or 10 s pass.
func readUntil(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	done := make(chan error, 1)
	var seen strings.Builder
	go func() {
		for {
			line, err := r.ReadString('\n')
			seen.WriteString(line)
			if strings.Contains(line, want) {
				done <- nil
				return
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stream ended before %q: %v\n%s", want, err, seen.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no %q on the stream within 10s", want)
	}
}
