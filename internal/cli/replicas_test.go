package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	_ "github.com/switchboard-mcp/switchboard/internal/store/postgres" // the "pgx" driver for the admin connection
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// cluster is three `switchboard serve` processes (this test binary
// re-executed as the command) on one fresh PostgreSQL database, behind a
// real HAProxy balancing round-robin without stickiness.
type cluster struct {
	lb       string // http://127.0.0.1:PORT of the balancer
	replicas []*replica
	key      string // user ada's API key
}

type replica struct {
	name   string // s0, s1, s2: the balancer's X-Backend header
	base   string
	cmd    *exec.Cmd
	stderr *clitest.Buffer
	done   chan struct{}
}

// haproxyPath returns haproxy's path, or skips the test when it is not
// installed outside CI (in CI, .ci/haproxy-install installs it and the
// test must run).
func haproxyPath(t testing.TB) string {
	p, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("haproxy is not installed; .ci/run installs it with .ci/haproxy-install")
		}
		t.Skip("haproxy is not installed (bash .ci/haproxy-install)")
	}
	return p
}

func freePort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startCluster writes the config (extra is appended), creates user ada,
// starts n replicas and the balancer, and stops them all when the test
// ends.
func startCluster(t testing.TB, model string, n int, extra string) *cluster {
	haproxy := haproxyPath(t)
	dsn := storetest.PostgresDatabase(t, "replicas")
	dir := t.TempDir()
	// calculator needs approval; current_time (read-only) does not.
	cfg := fmt.Sprintf(`database: {url: %q}
models:
  default: {provider: openai, baseURL: %q, model: fake, toolMode: native}
approvals:
  rules: [{tool: calculator, policy: ask}]
`, dsn, model) + extra
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb clitest.Buffer
	if code := Run(context.Background(), &Env{
		Args: []string{"users", "add", "ada"}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Cwd: dir,
	}); code != 0 {
		t.Fatalf("users add: exit %d\n%s", code, errb.String())
	}
	c := &cluster{key: strings.TrimSpace(out.String())}
	for i := range n {
		c.replicas = append(c.replicas, startReplica(t, dir, fmt.Sprintf("s%d", i)))
	}
	c.lb = "http://" + startHAProxy(t, haproxy, c.replicas)
	return c
}

func startReplica(t testing.TB, dir, name string) *replica {
	t.Helper()
	rp := &replica{name: name, stderr: &clitest.Buffer{}, done: make(chan struct{})}
	// Each replica has its own data directory (tool output spills, stdio
	// servers' state); what they share is the database.
	rp.cmd = exec.Command(os.Args[0], "serve", "--addr", freePort(t), "--config", filepath.Join(dir, "switchboard.yaml"), "--data", filepath.Join(dir, name))
	rp.cmd.Dir = dir
	rp.cmd.Env = append(os.Environ(), envRunMain+"=1")
	rp.cmd.Stderr = rp.stderr
	if err := rp.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = rp.cmd.Wait(); close(rp.done) }()
	t.Cleanup(func() {
		_ = rp.cmd.Process.Signal(os.Interrupt)
		select {
		case <-rp.done:
		case <-time.After(20 * time.Second):
			_ = rp.cmd.Process.Kill()
			<-rp.done
		}
	})
	rp.base = clitest.Listening(t, "replica "+name, rp.stderr, rp.done)
	return rp
}

// haproxyConfig balances round-robin, request by request (the server-side
// connection closes after each), with no stickiness; X-Backend names the
// replica that answered, for the test to see the spread. The timeouts let
// SSE streams and their keep-alives through. docs/DEPLOY.md has the same
// settings.
const haproxyConfig = `global
	maxconn 4096
defaults
	mode http
	timeout connect 5s
	timeout client 120s
	timeout server 120s
	timeout tunnel 1h
	option http-server-close
	# A request that could not reach a replica (it just died) goes to
	# another; one that reached it is never sent twice.
	option redispatch
	retries 3
	retry-on conn-failure
frontend switchboard
	bind %s
	default_backend replicas
backend replicas
	balance roundrobin
	option httpchk GET /healthz
	http-response set-header X-Backend %%s
%s`

func startHAProxy(t testing.TB, bin string, rs []*replica) string {
	t.Helper()
	addr := freePort(t)
	var servers strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&servers, "\tserver %s %s check inter 1s fall 2 rise 1\n", r.name, strings.TrimPrefix(r.base, "http://"))
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, haproxyConfig, addr, servers.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var out clitest.Buffer
	cmd := exec.Command(bin, "-db", "-f", cfg)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("haproxy did not start:\n%s", out.String())
	return ""
}

// do sends a request through the balancer with ada's key and returns the
// response (the caller closes its body).
func (c *cluster) do(t testing.TB, ctx context.Context, method, path string, body any, hdr ...string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.lb+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// getJSON decodes the JSON answer of a request through the balancer,
// failing on any status but want.
func (c *cluster) getJSON(t testing.TB, method, path string, body any, want int, v any) string {
	t.Helper()
	resp := c.do(t, t.Context(), method, path, body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s (replica %s)", method, path, resp.StatusCode, b, resp.Header.Get("X-Backend"))
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return resp.Header.Get("X-Backend")
}

// sseEvent is one event of a run's stream.
type sseEvent struct {
	id, kind string
	data     map[string]any
}

// events reads a run's stream, calling on for each event until it returns
// false or the stream ends.
func events(t testing.TB, body io.Reader, on func(sseEvent) bool) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.kind = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data)
		case line == "" && ev.kind != "":
			if !on(ev) {
				return
			}
			ev = sseEvent{}
		}
	}
}

// startTurn creates a conversation and posts a message through the
// balancer, and returns the open stream and the replica running it.
func (c *cluster) startTurn(t testing.TB, ctx context.Context, msg string) (*http.Response, string) {
	t.Helper()
	var conv struct{ ID string }
	c.getJSON(t, http.MethodPost, "/api/v1/conversations", map[string]string{"title": msg}, http.StatusCreated, &conv)
	resp := c.do(t, ctx, http.MethodPost, "/api/v1/conversations/"+conv.ID+"/messages", map[string]string{"message": msg}, "Accept", "text/event-stream")
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("posting a message: %d %s", resp.StatusCode, b)
	}
	return resp, resp.Header.Get("X-Backend")
}

// TestReplicasBehindBalancer drives three replicas through HAProxy:
// conversations with tool calls and approvals decided on whichever replica
// the balancer picks, a run re-attached elsewhere, /mcp, a shared rate
// limit, and a replica killed mid-run. Nothing is lost, and the only error
// a user sees is the interrupted run.
func TestReplicasBehindBalancer(t *testing.T) {
	f := newFakeOpenAI(t, "calculator", `{"expression":"6*7"}`)
	c := startCluster(t, f.URL+"/v1", 3, "rateLimits: {requestsPerMinute: 600}\n")

	t.Run("approvals decided anywhere", func(t *testing.T) {
		var wg sync.WaitGroup
		backends := make(chan string, 12)
		for i := range 6 {
			wg.Go(func() {
				resp, _ := c.startTurn(t, t.Context(), fmt.Sprintf("what is 6*7? (%d)", i))
				defer resp.Body.Close()
				var (
					kinds   []string
					answer  string
					decided time.Time
				)
				events(t, resp.Body, func(ev sseEvent) bool {
					kinds = append(kinds, ev.kind)
					switch ev.kind {
					case "approval":
						id := ev.data["approval"].(map[string]any)["id"].(string)
						backends <- c.getJSON(t, http.MethodPost, "/api/v1/approvals/"+id, map[string]string{"decision": "approve"}, http.StatusOK, nil)
						decided = time.Now()
					case "approval_resolved":
						// Reported, not asserted: the figure is in
						// docs/BENCHMARKS.md, measured by a benchmark.
						t.Logf("decision reached the run %s after the answer to POST", time.Since(decided).Round(time.Millisecond))
					case "text":
						answer += ev.data["text"].(string)
					case "error":
						t.Errorf("run error: %v", ev.data)
					}
					return true
				})
				if kinds[len(kinds)-1] != "done" || !strings.Contains(answer, "42") {
					t.Errorf("turn %d: events %v, answer %q", i, kinds, answer)
				}
			})
		}
		wg.Wait()
		close(backends)
		// Nothing lost: every conversation holds its user message, the
		// tool call, its result and the answer, read through any replica.
		var convs struct {
			Items []struct{ ID, Title string }
		}
		c.getJSON(t, http.MethodGet, "/api/v1/conversations?limit=100", nil, http.StatusOK, &convs)
		if len(convs.Items) != 6 {
			t.Errorf("%d conversations listed, want 6", len(convs.Items))
		}
		for _, cv := range convs.Items {
			var full struct {
				Messages []struct{ Role string }
			}
			c.getJSON(t, http.MethodGet, "/api/v1/conversations/"+cv.ID, nil, http.StatusOK, &full)
			var roles []string
			for _, m := range full.Messages {
				roles = append(roles, m.Role)
			}
			if strings.Join(roles, ",") != "user,assistant,tool,assistant" {
				t.Errorf("conversation %q holds %v", cv.Title, roles)
			}
		}
		seen := map[string]bool{}
		for b := range backends {
			seen[b] = true
		}
		if len(seen) < 2 {
			t.Errorf("decisions went to replicas %v; the balancer should spread them", seen)
		}
	})

	t.Run("run re-attached through the balancer", func(t *testing.T) {
		ctx, leave := context.WithCancel(t.Context())
		resp, _ := c.startTurn(t, ctx, "what is 6*7? (re-attach)")
		var runID, lastID, approval string
		events(t, resp.Body, func(ev sseEvent) bool {
			lastID = ev.id
			switch ev.kind {
			case "run":
				runID = ev.data["runId"].(string)
			case "approval":
				approval = ev.data["approval"].(map[string]any)["id"].(string)
				return false // the page is reloaded while the approval waits
			}
			return true
		})
		leave()
		resp.Body.Close()
		r := c.do(t, t.Context(), http.MethodGet, "/api/v1/runs/"+runID+"/events", nil, "Last-Event-ID", lastID)
		defer r.Body.Close()
		if r.StatusCode != http.StatusOK {
			t.Fatalf("re-attaching: %d", r.StatusCode)
		}
		c.getJSON(t, http.MethodPost, "/api/v1/approvals/"+approval, map[string]string{"decision": "approve"}, http.StatusOK, nil)
		var kinds []string
		prev := lastID
		events(t, r.Body, func(ev sseEvent) bool {
			if ev.id != "" && ev.id <= prev && len(ev.id) <= len(prev) {
				t.Errorf("event id %s after %s", ev.id, prev)
			}
			prev = ev.id
			kinds = append(kinds, ev.kind)
			return true
		})
		if len(kinds) == 0 || kinds[0] != "approval_resolved" || kinds[len(kinds)-1] != "done" {
			t.Errorf("re-attached events %v; want approval_resolved first and done last", kinds)
		}
	})

	t.Run("mcp", func(t *testing.T) {
		// One replica's MCP session, through the balancer: initialize,
		// then tools/list and tools/call, each request routed on its own.
		// Whether a session made on one replica is honoured by another is
		// the gateway's part; once it is, this holds across the three.
		mcpCall(t, c)
	})

	t.Run("rate limit shared", func(t *testing.T) {
		// 600 a minute is a burst of 100 in each 10 s window, counted
		// across the replicas together.
		start := time.Now()
		var (
			mu    sync.Mutex
			codes = map[int]int{}
			wg    sync.WaitGroup
		)
		for range 4 {
			wg.Go(func() {
				for range 60 {
					resp := c.do(t, t.Context(), http.MethodGet, "/api/v1/agents", nil)
					resp.Body.Close()
					mu.Lock()
					codes[resp.StatusCode]++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		windows := int(time.Since(start)/(10*time.Second)) + 2
		if codes[http.StatusTooManyRequests] == 0 || codes[http.StatusOK] > 100*windows || codes[http.StatusOK]+codes[http.StatusTooManyRequests] != 240 {
			t.Errorf("status counts %v; want at most 100 OK per window in total and the rest 429", codes)
		}
		time.Sleep(time.Until(start.Truncate(10 * time.Second).Add(10 * time.Second))) // the next window, for the next subtest
	})

	t.Run("replica killed mid-run", func(t *testing.T) {
		resp, backend := c.startTurn(t, t.Context(), "what is 6*7? (killed)")
		defer resp.Body.Close()
		var runID, approval string
		events(t, resp.Body, func(ev sseEvent) bool {
			switch ev.kind {
			case "run":
				runID = ev.data["runId"].(string)
			case "approval":
				approval = ev.data["approval"].(map[string]any)["id"].(string)
				return false
			}
			return true
		})
		var victim *replica
		for _, r := range c.replicas {
			if r.name == backend {
				victim = r
			}
		}
		if victim == nil {
			t.Fatalf("no replica %q", backend)
		}
		_ = victim.cmd.Process.Kill() // kill -9
		<-victim.done
		killed := time.Now()

		// Within the sweep interval and a little, another replica expires
		// the approval and interrupts the run.
		deadline := killed.Add(15 * time.Second)
		for {
			var pending struct{ Items []struct{ ID string } }
			c.getJSON(t, http.MethodGet, "/api/v1/approvals", nil, http.StatusOK, &pending)
			still := false
			for _, a := range pending.Items {
				still = still || a.ID == approval
			}
			if !still {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("approval still pending %s after the replica was killed", time.Since(killed))
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Logf("approval expired %s after the kill", time.Since(killed).Round(100*time.Millisecond))
		r := c.do(t, t.Context(), http.MethodGet, "/api/v1/runs/"+runID+"/events?after=0", nil)
		defer r.Body.Close()
		var last string
		events(t, r.Body, func(ev sseEvent) bool { last = ev.kind; return true })
		if last != "interrupted" {
			t.Errorf("re-attached stream of the killed run ends with %q, want interrupted", last)
		}
		// The survivors go on serving through the balancer, which has
		// taken the dead replica out.
		for range 6 {
			c.getJSON(t, http.MethodGet, "/api/v1/agents", nil, http.StatusOK, nil)
		}
	})
}

// mcpCall speaks MCP's Streamable HTTP to the cluster: initialize through
// the balancer (any replica answers it), then one replica's session:
// tools/list and a tools/call on the replica that made the session.
// TODO(#14): send the session's requests through the balancer once
// sessions are honoured by every replica.
func mcpCall(t *testing.T, c *cluster) {
	post := func(base, session string, id int, method string, params any) (*http.Response, map[string]any) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/mcp", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+c.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("mcp %s: %v", method, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("mcp %s: %d %s", method, resp.StatusCode, b)
		}
		// The answer is JSON or one SSE message event.
		raw := b
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "data: ") {
				raw = []byte(strings.TrimPrefix(line, "data: "))
			}
		}
		var msg map[string]any
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatalf("mcp %s: %v in %s", method, err, b)
		}
		if msg["error"] != nil {
			t.Fatalf("mcp %s: %v", method, msg["error"])
		}
		return resp, msg
	}
	initParams := map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "replicas-test", "version": "0"}}
	for range len(c.replicas) {
		post(c.lb, "", 1, "initialize", initParams)
	}
	base := c.replicas[0].base
	resp, _ := post(base, "", 1, "initialize", initParams)
	session := resp.Header.Get("Mcp-Session-Id")
	_, list := post(base, session, 2, "tools/list", map[string]any{})
	if !strings.Contains(fmt.Sprint(list["result"]), "current_time") {
		t.Errorf("tools/list lacks current_time: %v", list["result"])
	}
	_, call := post(base, session, 3, "tools/call", map[string]any{"name": "current_time", "arguments": map[string]any{}})
	if r, _ := call["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Errorf("tools/call current_time: %v", call)
	}
}
