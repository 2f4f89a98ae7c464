package cli

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// TestReplicasQuestionsRoundRobin runs a 2025-11-25 MCP session through
// the plain round-robin balancer in front of three replicas, with no
// stickiness: every call of calculator (policy ask) is asked by
// elicitation on whichever replica serves it, the client's answer reaches
// whichever replica the balancer picks next and is relayed through the
// database, and the call runs; progress notifications of a tool of an MCP
// server (server-everything's long-running operation) reach the client
// from the replica serving the call.
func TestReplicasQuestionsRoundRobin(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/server-everything")
	everything := filepath.Join(nm, "@modelcontextprotocol/server-everything/dist/index.js")
	f := newFakeOpenAI(t, "calculator", `{"expression":"6*7"}`)
	c := startCluster(t, f.URL+"/v1", 3, fmt.Sprintf("server: {mcpSessionKey: %s}\nmcpServers:\n  everything: {command: %q, args: [%q, stdio]}\n",
		replicasSessionKey, node, everything))

	var (
		mu       sync.Mutex
		asked    int
		progress = map[any][]float64{}
	)
	client := mcp.NewClient(&mcp.Implementation{Name: "replicas-relay-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked++
			if !strings.Contains(req.Params.Message, "calculator") {
				t.Errorf("question %q does not name the tool", req.Params.Message)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress[req.Params.ProgressToken] = append(progress[req.Params.ProgressToken], req.Params.Progress)
		},
	})
	log := &backendLog{key: c.key}
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: c.lb + "/mcp", HTTPClient: &http.Client{Transport: log}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("initialize through the balancer: %v", err)
	}
	defer cs.Close()

	// Wait until the replicas have the server's tools.
	const slow = "everything__trigger-long-running-operation"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		list, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if slices.ContainsFunc(list.Tools, func(tl *mcp.Tool) bool { return tl.Name == slow }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tools/list lacks %s", slow)
		}
	}

	// Six calls: with the question, its answer and (now and then) a list
	// in between, they and their answers fall on every replica.
	const calls = 6
	for i := range calls {
		if i%3 == 1 {
			if _, err := cs.ListTools(t.Context(), nil); err != nil {
				t.Fatalf("tools/list: %v", err)
			}
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "6*7"}})
		if err != nil {
			t.Fatalf("tools/call calculator %d: %v", i, err)
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "42" {
			t.Fatalf("tools/call calculator %d: %+v, want 42", i, res.Content)
		}
	}
	mu.Lock()
	if asked != calls {
		t.Errorf("asked %d approval questions for %d calls", asked, calls)
	}
	mu.Unlock()

	for i := range len(c.replicas) {
		params := &mcp.CallToolParams{Name: slow, Arguments: map[string]any{"duration": 0.3, "steps": 3}}
		params.SetProgressToken(fmt.Sprintf("op%d", i))
		res, err := cs.CallTool(t.Context(), params)
		if err != nil || res.IsError {
			t.Fatalf("tools/call %s %d: %v %+v", slow, i, err, res)
		}
	}
	// The client handles notifications on its own goroutine.
	var got int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		got = len(progress)
		mu.Unlock()
		if got == len(c.replicas) || time.Now().After(deadline) {
			break
		}
	}
	mu.Lock()
	// Each call gets its progress; not necessarily every step, since the
	// upstream's last notification may be handled after its result.
	for tok, p := range progress {
		if len(p) == 0 || slices.ContainsFunc(p, func(v float64) bool { return v < 1 || v > 3 }) {
			t.Errorf("progress of %v: %v, want steps of 1 to 3", tok, p)
		}
	}
	mu.Unlock()
	if got != len(c.replicas) {
		t.Errorf("progress for %d of %d calls", got, len(c.replicas))
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing: %v", err)
	}

	// Every replica served calls and got answers.
	calledOn, answeredOn := map[string]bool{}, map[string]bool{}
	var posts atomic.Int32
	for _, h := range log.hits() {
		t.Logf("%s %s -> replica %s: %d", h.method, h.rpc, h.backend, h.status)
		if h.method != http.MethodPost {
			continue
		}
		posts.Add(1)
		if h.status != http.StatusOK && h.status != http.StatusAccepted {
			t.Errorf("POST %s on replica %s: %d", h.rpc, h.backend, h.status)
		}
		switch h.rpc {
		case "tools/call":
			calledOn[h.backend] = true
		case "":
			answeredOn[h.backend] = true
		}
	}
	if len(calledOn) < len(c.replicas) || len(answeredOn) < 2 {
		t.Errorf("calls served by %v, answers received by %v; want calls on all %d replicas and answers on several", calledOn, answeredOn, len(c.replicas))
	}
}
