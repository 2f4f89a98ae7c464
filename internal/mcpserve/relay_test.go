package mcpserve_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store/postgres"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestQuestionsRelayedBetweenReplicas serves one 2025-11-25 session from
// two Servers on one PostgreSQL database, each with its own connection
// (its own LISTEN), with every request of the client going to the other
// replica than the one before, as a round-robin balancer does. Calls that
// need an approval question are asked on the call's own stream, whichever
// replica serves it; the answer, which reaches the other replica, is
// relayed through the database; the tool runs once per accepted call and
// not for a declined one; progress reaches the client.
func TestQuestionsRelayedBetweenReplicas(t *testing.T) {
	dsn := storetest.PostgresDatabase(t, "relay")
	key := []byte("a key both replicas are configured with")
	var called atomic.Int32
	newReplica := func() string {
		db, err := postgres.Open(t.Context(), dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		reg := tools.NewRegistry(nil)
		reg.Set(tools.Source{Kind: tools.KindBuiltin}, []tools.Tool{tool("rm", destructive, func(_ context.Context, req *tools.CallRequest) (*tools.Result, error) {
			called.Add(1)
			if req.Progress != nil {
				req.Progress(tools.Progress{Progress: 1, Total: 1, Message: "removed"})
			}
			return tools.TextResult("removed"), nil
		})})
		// The server is closed before the store (cleanups run last first).
		return serveHTTP(t, newServer(t, reg, nil, &mcpserve.Options{SessionKey: key, Answers: db, Changes: db, ApprovalTimeout: 5 * time.Second, Logger: slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))})).URL
	}
	replicas := []string{newReplica(), newReplica()}
	var n atomic.Int32
	perReplica := make([]atomic.Int32, 2)
	client := &http.Client{Transport: &headerTransport{caller: "alice", base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		i := int(n.Add(1)) % 2
		perReplica[i].Add(1)
		r = r.Clone(r.Context())
		r.URL.Host = strings.TrimPrefix(replicas[i], "http://")
		return http.DefaultTransport.RoundTrip(r)
	})}}
	var (
		mu       sync.Mutex
		asked    int
		decline  bool
		progress = map[any]bool{}
	)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "balanced", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked++
			if !strings.Contains(req.Params.Message, "rm") {
				t.Errorf("question %q does not name the tool", req.Params.Message)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": !decline}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress[req.Params.ProgressToken] = true
		},
	}).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: replicas[0], HTTPClient: client, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	const calls = 6
	for i := range calls {
		// A request in between makes the next call and its answer land on
		// the other replicas: the one that created the session asks and
		// the other relays, then the other way round.
		if i%2 == 1 {
			if _, err := cs.ListTools(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
		}
		params := &mcp.CallToolParams{Name: "rm", Arguments: map[string]any{"i": i}}
		params.SetProgressToken(i + 1)
		res, err := cs.CallTool(t.Context(), params)
		if err != nil || res.IsError || text(res) != "removed" {
			t.Fatalf("call %d: %v %q", i, err, text(res))
		}
	}
	// Progress notifications travel on the call's stream before its
	// result, but the client handles them on its own goroutine.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		got := len(progress)
		mu.Unlock()
		if got == calls || time.Now().After(deadline) {
			break
		}
	}
	mu.Lock()
	if asked != calls || called.Load() != calls || len(progress) != calls {
		t.Errorf("asked %d, called %d, progress %v; want each %d", asked, called.Load(), progress, calls)
	}
	decline = true
	mu.Unlock()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rm"})
	if err != nil || !res.IsError || !strings.Contains(text(res), "declined") || called.Load() != calls {
		t.Errorf("declined call: %v %q, called %d; want refused and not run", err, text(res), called.Load())
	}
	if perReplica[0].Load() < calls || perReplica[1].Load() < calls {
		t.Errorf("requests per replica %d, %d; want both replicas to serve calls and answers", perReplica[0].Load(), perReplica[1].Load())
	}
}

// TestRelayedAnswersStayInTheirSession attacks the relay: another caller
// cannot post an answer into a session, and answers with IDs the gateway
// never sends are dropped, not stored, while a well-formed one for a
// question nobody waits for is stored (for the TTL) and harms nothing.
func TestRelayedAnswersStayInTheirSession(t *testing.T) {
	dsn := storetest.PostgresDatabase(t, "relay")
	key := []byte("a key both replicas are configured with")
	var urls []string
	for range 2 {
		db, err := postgres.Open(t.Context(), dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		urls = append(urls, serveHTTP(t, newServer(t, catalogue(), nil, &mcpserve.Options{SessionKey: key, Answers: db, Changes: db})).URL)
	}
	id, code, body := initialize(t, urls[0], "alice")
	if code != http.StatusOK {
		t.Fatalf("initialize: %d %s", code, body)
	}
	answer := func(caller, rpcID string) int {
		_, code, _ := rawPost(t, t.Context(), urls[1], caller, id, `{"jsonrpc":"2.0","id":`+rpcID+`,"result":{"action":"accept","content":{"approve":true}}}`)
		return code
	}
	if code := answer("mallory", "1"); code != http.StatusForbidden {
		t.Errorf("mallory's answer into alice's session: %d, want 403", code)
	}
	for _, bad := range []string{`"x"`, `"sbTOOSHORT-1"`, `"sbAAAAAAAAAAAAAAAA-x"`, `"sbaaaaaaaaaaaaaaaa-1"`, `{}`} {
		if code := answer("alice", bad); code != http.StatusAccepted && code != http.StatusBadRequest {
			t.Errorf("answer with id %s: %d, want 202 or 400", bad, code)
		}
	}
	if code := answer("alice", `"sbAAAAAAAAAAAAAAAA-1"`); code != http.StatusAccepted {
		t.Errorf("a well-formed answer nobody waits for: %d, want 202", code)
	}
	if code := answer("alice", `7`); code != http.StatusAccepted {
		t.Errorf("an answer for the creating replica's session: %d, want 202", code)
	}
	sqldb, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	var n int
	if err := sqldb.QueryRowContext(t.Context(), `SELECT count(*) FROM mcp_answers`).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d answers stored (%v), want the 2 well-formed ones", n, err)
	}
	if _, code, body := rawPost(t, t.Context(), urls[1], "alice", id, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`); code != http.StatusOK || !strings.Contains(body, "files__read") {
		t.Errorf("the session after the answers: %d %s", code, body)
	}
}

type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) { l.t.Log(strings.TrimSpace(string(p))); return len(p), nil }
