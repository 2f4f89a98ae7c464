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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/cli/clitest"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	_ "github.com/switchboard-mcp/switchboard/internal/store/postgres" // the "pgx" driver for the admin connection
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// cluster is three `switchboard serve` processes (this test binary
// re-executed as the command) on one fresh PostgreSQL database, behind a
// real HAProxy balancing round-robin without stickiness.
type cluster struct {
	lb       string // http://127.0.0.1:PORT of the balancer
	sticky   string // the same, with /mcp sessions pinned to their replica
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
	lb, sticky := startHAProxy(t, haproxy, c.replicas)
	c.lb, c.sticky = "http://"+lb, "http://"+sticky
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
// settings. The second frontend pins each MCP session to the replica that
// created it, learning the session ID from the response: only there can a
// 2025 session be asked approval questions (docs/DEPLOY.md).
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
%s
frontend switchboard_sticky
	bind %s
	default_backend sticky
backend sticky
	balance roundrobin
	stick-table type string len 200 size 100k expire 1h
	stick store-response res.hdr(Mcp-Session-Id)
	stick match req.hdr(Mcp-Session-Id)
	option httpchk GET /healthz
	http-response set-header X-Backend %%s
%s`

func startHAProxy(t testing.TB, bin string, rs []*replica) (addr, sticky string) {
	t.Helper()
	addr, sticky = freePort(t), freePort(t)
	var servers strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&servers, "\tserver %s %s check inter 1s fall 2 rise 1\n", r.name, strings.TrimPrefix(r.base, "http://"))
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, haproxyConfig, addr, servers.String(), sticky, servers.String()), 0o600); err != nil {
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
				return addr, sticky
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("haproxy did not start:\n%s", out.String())
	return "", ""
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

// replicasSessionKey is the cluster's server.mcpSessionKey, the same on
// every replica.
const replicasSessionKey = "a-long-random-key-for-the-three-replicas"

// TestReplicasBehindBalancer drives three replicas through HAProxy:
// conversations with tool calls and approvals decided on whichever replica
// the balancer picks, a run re-attached elsewhere, /mcp, a shared rate
// limit, and a replica killed mid-run. Nothing is lost, and the only error
// a user sees is the interrupted run.
func TestReplicasBehindBalancer(t *testing.T) {
	f := newFakeOpenAI(t, "calculator", `{"expression":"6*7"}`)
	c := startCluster(t, f.URL+"/v1", 3, "rateLimits: {requestsPerMinute: 600}\nserver: {mcpSessionKey: "+replicasSessionKey+"}\n")

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
		// Each request is routed on its own; the replicas share
		// server.mcpSessionKey, so any of them continues a session.
		mcpThroughBalancer(t, c)
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
		// The next window, for the next subtest, with a second to spare:
		// a replica that found the window spent refuses until the end it
		// computed from the database's clock.
		time.Sleep(time.Until(start.Truncate(10 * time.Second).Add(11 * time.Second)))
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

// backendLog is an MCP client's HTTP transport through the balancer: it
// adds the user's key and records, for each request, its method, its
// JSON-RPC method (for POSTs), the replica that answered and the status.
type backendLog struct {
	key string
	mu  sync.Mutex
	hit []mcpHit
}

type mcpHit struct {
	method, rpc, backend, session string
	status                        int
}

func (l *backendLog) RoundTrip(r *http.Request) (*http.Response, error) {
	var rpc string
	if r.Body != nil && r.GetBody != nil {
		if b, err := r.GetBody(); err == nil {
			var m struct{ Method string }
			_ = json.NewDecoder(b).Decode(&m)
			b.Close()
			rpc = m.Method
		}
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+l.key)
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.hit = append(l.hit, mcpHit{
		method: r.Method, rpc: rpc, backend: resp.Header.Get("X-Backend"),
		session: resp.Header.Get("Mcp-Session-Id"), status: resp.StatusCode,
	})
	l.mu.Unlock()
	return resp, nil
}

func (l *backendLog) hits() []mcpHit {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.hit)
}

// mcpThroughBalancer speaks MCP's Streamable HTTP to the cluster with the
// go-sdk client, every request through the round-robin balancer: a whole
// 2025-11-25 session (initialize, tools/list, tools/call, DELETE), which
// the replicas continue for each other under the shared session key, and
// a 2026-07-28 client, which has no session. Approval questions (calculator
// asks) are answered by the client: a 2026-07-28 client's through the
// round-robin balancer, a 2025 session's through the sticky one here (and
// through round-robin in TestReplicasQuestionsRoundRobin).
func mcpThroughBalancer(t *testing.T, c *cluster) {
	var asked atomic.Int32
	client := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	connectTo := func(t *testing.T, lb, version string) (*mcp.ClientSession, *backendLog) {
		t.Helper()
		log := &backendLog{key: c.key}
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
			Endpoint: lb + "/mcp", HTTPClient: &http.Client{Transport: log}, MaxRetries: -1,
		}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("%s initialize through the balancer: %v", version, err)
		}
		if v := cs.InitializeResult().ProtocolVersion; v != version {
			t.Errorf("negotiated %s, want %s", v, version)
		}
		return cs, log
	}
	connect := func(t *testing.T, version string) (*mcp.ClientSession, *backendLog) {
		t.Helper()
		return connectTo(t, c.lb, version)
	}
	// approved calls calculator, which asks for approval each time.
	approved := func(t *testing.T, cs *mcp.ClientSession, n int) {
		t.Helper()
		before := asked.Load()
		for i := range n {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "6*7"}})
			if err != nil {
				t.Fatalf("tools/call calculator %d: %v", i, err)
			}
			if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "42" {
				t.Errorf("tools/call calculator %d: %+v, want 42", i, res)
			}
		}
		if got := asked.Load() - before; got != int32(n) {
			t.Errorf("asked %d approval questions for %d calls", got, n)
		}
	}
	use := func(t *testing.T, cs *mcp.ClientSession) {
		t.Helper()
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if !slices.ContainsFunc(list.Tools, func(tl *mcp.Tool) bool { return tl.Name == "current_time" }) {
			t.Errorf("tools/list lacks current_time")
		}
		for i := range 6 {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "current_time", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("tools/call %d: %v %+v", i, err, res)
			}
		}
	}
	// spread returns the replicas that answered the POSTs after initialize.
	spread := func(t *testing.T, hits []mcpHit) map[string]bool {
		seen := map[string]bool{}
		for _, h := range hits {
			t.Logf("%s %s -> replica %s: %d", h.method, h.rpc, h.backend, h.status)
			if h.method == http.MethodPost && h.rpc != "initialize" && h.rpc != "" {
				seen[h.backend] = true
			}
		}
		return seen
	}

	t.Run("2025-11-25 session", func(t *testing.T) {
		cs, log := connect(t, "2025-11-25")
		id := cs.ID()
		if id == "" {
			t.Fatal("no session ID: a 2025-11-25 client keeps a session")
		}
		use(t, cs)
		if err := cs.Close(); err != nil {
			t.Errorf("closing the session: %v", err)
		}
		hits := log.hits()
		var deleted bool
		for _, h := range hits {
			if h.method == http.MethodPost && h.status != http.StatusOK && h.status != http.StatusAccepted {
				t.Errorf("%s %s on replica %s: %d", h.method, h.rpc, h.backend, h.status)
			}
			if h.method == http.MethodDelete {
				deleted = true
				if h.status != http.StatusNoContent && h.status != http.StatusOK {
					t.Errorf("DELETE on replica %s: %d", h.backend, h.status)
				}
			}
		}
		if !deleted {
			t.Error("the client sent no DELETE on close")
		}
		if seen := spread(t, hits); len(seen) < len(c.replicas) {
			t.Errorf("the session's requests reached replicas %v; round-robin should reach all %d", seen, len(c.replicas))
		}
	})

	t.Run("2026-07-28 stateless", func(t *testing.T) {
		cs, log := connect(t, "2026-07-28")
		use(t, cs)
		approved(t, cs, 3)
		if err := cs.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
		hits := log.hits()
		for _, h := range hits {
			if h.session != "" {
				t.Errorf("%s %s on replica %s handed out session %q; 2026-07-28 has none", h.method, h.rpc, h.backend, h.session)
			}
		}
		if seen := spread(t, hits); len(seen) < len(c.replicas) {
			t.Errorf("the client's requests reached replicas %v; round-robin should reach all %d", seen, len(c.replicas))
		}
	})

	t.Run("TypeScript SDK", func(t *testing.T) {
		// The SDK most hosts use, on its own session through round-robin
		// (a 405 for its GET stream from a replica not holding it).
		nm, node := mcptest.NPM(t, "@modelcontextprotocol/sdk")
		r := runTSClient(t, nm, node, []string{"TS_TOOL=current_time", "TS_ARGS={}"}, "http", c.lb+"/mcp", c.key)
		if r.ProtocolVersion == nil || *r.ProtocolVersion != "2025-11-25" || r.SessionID == nil || *r.SessionID == "" {
			t.Errorf("protocol %v, session %v; want a 2025-11-25 session", r.ProtocolVersion, r.SessionID)
		}
		if !slices.Contains(r.Tools, "current_time") || len(r.Result.Content) != 1 || r.Result.IsError {
			t.Errorf("tools %v, result %+v; want current_time listed and called", r.Tools, r.Result)
		}
	})

	t.Run("MCP Inspector CLI", func(t *testing.T) {
		// Each run is a new session: initialize, then the method, most
		// likely on another replica.
		nm, node := mcptest.NPM(t, "@modelcontextprotocol/inspector")
		home := t.TempDir()
		for range len(c.replicas) {
			out, stderr, err := runInspector(t, nm, node, home, []string{c.lb + "/mcp", "--transport", "http", "--header", "Authorization: Bearer " + c.key},
				"--method", "tools/call", "--tool-name", "current_time")
			var res struct {
				Content []struct{ Text string }
				IsError bool
			}
			if err != nil || json.Unmarshal(out, &res) != nil || len(res.Content) != 1 || res.IsError {
				t.Errorf("inspector tools/call current_time: %v, printed %s\n%s", err, out, stderr)
			}
		}
	})

	t.Run("2025-11-25 approvals, sticky", func(t *testing.T) {
		// Pinned, a session's questions and answers stay on one replica
		// and need no relay through the database.
		cs, log := connectTo(t, c.sticky, "2025-11-25")
		use(t, cs)
		approved(t, cs, 3)
		if err := cs.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
		backends := map[string]bool{}
		for _, h := range log.hits() {
			backends[h.backend] = true
		}
		if len(backends) != 1 {
			t.Errorf("the pinned session's requests reached replicas %v, want one", backends)
		}
	})
}
