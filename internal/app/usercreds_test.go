package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/store/storetest"
)

// serveLogged is serveReplica with every log, down to debug, in logs.
func serveLogged(t *testing.T, dsn string, logs io.Writer, configure func(*config.Config)) (*App, string) {
	t.Helper()
	a, url := serveWith(t, dsn, &Options{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}, configure)
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return a, url
}

// remoteCall is one tools/call as the remote server received it.
type remoteCall struct{ auth, text string }

// recordingRemote is a real MCP server over Streamable HTTP (go-sdk) that
// accepts only the given bearer tokens and records which one each
// tools/call carried, with the text it echoes.
func recordingRemote(t *testing.T, tokens ...string) (url string, seen func() []remoteCall) {
	var (
		mu    sync.Mutex
		calls []remoteCall
	)
	ok := map[string]bool{}
	for _, tk := range tokens {
		ok["Bearer "+tk] = true
	}
	sc, _ := mcptest.HTTPServer(t, "remote", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth := r.Header.Get("Authorization")
			if !ok[auth] {
				http.Error(w, "unknown token", http.StatusUnauthorized)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
				Params struct {
					Arguments struct{ Text string } `json:"arguments"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" {
				mu.Lock()
				calls = append(calls, remoteCall{auth: auth, text: msg.Params.Arguments.Text})
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	})
	return sc.URL, func() []remoteCall {
		mu.Lock()
		defer mu.Unlock()
		return append([]remoteCall(nil), calls...)
	}
}

// echoModel is an OpenAI-compatible model that, shown a user message,
// calls remote__echo with that message's text, and shown the tool's
// result, answers "done".
func echoModel(t *testing.T) string {
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		w.Header().Set("Content-Type", "text/event-stream")
		if last.Role == "tool" {
			_, _ = io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"done"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
			return
		}
		text, _ := last.Content.(string)
		args, _ := json.Marshal(map[string]string{"text": text})
		chunk, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "choices": []any{map[string]any{
			"index": 0, "finish_reason": "tool_calls", "delta": map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
				"index": 0, "id": "call_1", "type": "function", "function": map[string]any{"name": "remote__echo", "arguments": string(args)},
			}}},
		}}})
		_, _ = fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", chunk)
	}))
	t.Cleanup(fake.Close)
	return fake.URL
}

// TestPerUserCredentials is the done-when on real parts: a real
// remote MCP server over HTTP, two replicas on one PostgreSQL database,
// two users, every surface. Each user's calls reach the remote server with
// their own token, checked at the remote end; a user with none gets a
// clear error naming the server and where to connect; neither can read,
// replace or delete the other's; no token is in the API's answers, the
// audit trail or the logs; a disconnect on one replica stops use on the
// other at once.
func TestPerUserCredentials(t *testing.T) {
	const (
		listing  = "listing-token-0000"
		aliceTok = "alice-token-1111"
		bobTok   = "bob-token-2222"
	)
	remoteURL, seen := recordingRemote(t, listing, aliceTok, bobTok)
	modelURL := echoModel(t)
	var (
		mailMu   sync.Mutex
		mailAuth []string
	)
	mail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi.json" {
			_, _ = io.WriteString(w, `{"openapi": "3.0.0", "paths": {"/ping": {"get": {"operationId": "ping"}}}}`)
			return
		}
		mailMu.Lock()
		mailAuth = append(mailAuth, r.Header.Get("Authorization"))
		mailMu.Unlock()
		_, _ = io.WriteString(w, `{"ok": true}`)
	}))
	t.Cleanup(mail.Close)
	dsn := storetest.PostgresSchema(t)
	key := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{9}, 32))
	setup := func(c *config.Config) {
		c.SecretKey = config.Secret(key)
		c.MCPServers = map[string]config.MCPServer{"remote": {
			Type: "http", URL: remoteURL, Headers: map[string]string{"Authorization": "Bearer " + listing},
			Credentials: config.CredentialsPerUser, Timeout: time.Minute, ShutdownTimeout: time.Second,
		}}
		c.OpenAPIServers = map[string]config.OpenAPIServer{"mail": {URL: mail.URL, Credentials: config.CredentialsPerUser, Timeout: time.Minute}}
		c.Models = map[string]config.Model{"default": {Provider: "openai", BaseURL: modelURL + "/v1", Model: "m", ToolMode: "native", Timeout: time.Minute}}
		c.DefaultModel = "default"
		c.Assistant.Router = "off"
		c.Agents = map[string]config.Agent{"shared": {Model: "default", Prompt: "Echo.", Servers: []string{"remote"}, Router: "off"}}
	}
	var logs lockedBuffer
	a, aURL := serveLogged(t, dsn, &logs, setup)
	b, bURL := serveLogged(t, dsn, &logs, setup)
	for _, r := range []*App{a, b} {
		poll(t, "the per-user server's catalogue", func() bool { return hasTool(r, "remote__echo") })
	}
	alice, aliceKey, err := a.AddUser(t.Context(), "alice", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	bob, bobKey, err := a.AddUser(t.Context(), "bob", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string // every answer a user got, searched for tokens at the end
	rest := func(base, key, text string) string {
		t.Helper()
		code, body := send(t, http.MethodPost, base+"/api/v1/tools/remote__echo/call", key, map[string]any{"arguments": map[string]string{"text": text}})
		if code != http.StatusOK {
			t.Fatalf("REST call %q: %d %s", text, code, body)
		}
		bodies = append(bodies, body)
		return body
	}

	// Nobody has connected: a clear tool error naming the server and where.
	if body := rest(aURL, aliceKey, "before-connecting"); !strings.Contains(body, `"isError":true`) ||
		!strings.Contains(body, "remote needs your own credentials") || !strings.Contains(body, "/api/v1/connections/remote") {
		t.Errorf("a call before connecting answered %s", body)
	}

	// Each connects on a different replica; the answer never shows the token.
	for _, c := range []struct{ base, key, tok string }{{aURL, aliceKey, aliceTok}, {bURL, bobKey, bobTok}} {
		code, body := send(t, http.MethodPut, c.base+"/api/v1/connections/remote", c.key, map[string]string{"value": c.tok})
		if code != http.StatusOK || !strings.Contains(body, `"connected":true`) {
			t.Fatalf("connecting: %d %s", code, body)
		}
		bodies = append(bodies, body)
	}
	code, body := send(t, http.MethodPut, aURL+"/api/v1/connections/nosuch", aliceKey, map[string]string{"value": "x"})
	if code != http.StatusNotFound {
		t.Errorf("connecting to a server that is not per-user: %d %s", code, body)
	}

	// Every surface, each user on the replica where the other connected.
	rest(bURL, aliceKey, "alice-rest")
	rest(aURL, bobKey, "bob-rest")
	for _, c := range []struct{ base, key, text string }{{aURL, bobKey, "bob-mcp"}, {bURL, aliceKey, "alice-mcp"}} {
		client := mcp.NewClient(&mcp.Implementation{Name: "peruser-test", Version: "1"}, nil)
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: c.base + "/mcp", HTTPClient: &http.Client{Transport: bearerRT(c.key)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "remote__echo", Arguments: map[string]string{"text": c.text}})
		_ = cs.Close()
		if err != nil || res.IsError {
			t.Fatalf("MCP call %q: %v %+v", c.text, err, res)
		}
	}
	rt, err := a.Runtime(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	turn := func(u store.User, agentName, text string) {
		t.Helper()
		req := &agent.Request{ConversationID: "c-" + text, User: u.Name, UserID: u.ID, Agent: agentName, Message: text, Permissions: []string{"*"}}
		for ev, err := range rt.Run(t.Context(), req) {
			if err != nil {
				t.Fatalf("turn %q: %v", text, err)
			}
			if s := fmt.Sprint(ev); s != "" {
				bodies = append(bodies, s)
			}
		}
	}
	turn(alice, "", "alice-agent")
	turn(bob, "shared", "bob-shared")
	turn(alice, "shared", "alice-shared")

	// A per-user OpenAPI service: Alice's call carries her token; Bob's,
	// before he connects one for it, is refused naming the service.
	if code, body := send(t, http.MethodPut, aURL+"/api/v1/connections/mail", aliceKey, map[string]string{"value": aliceTok}); code != http.StatusOK {
		t.Fatalf("connecting mail: %d %s", code, body)
	}
	poll(t, "the OpenAPI service's catalogue", func() bool { return hasTool(b, "mail__ping") })
	if code, body := send(t, http.MethodPost, bURL+"/api/v1/tools/mail__ping/call", aliceKey, map[string]any{}); code != http.StatusOK || strings.Contains(body, `"isError":true`) {
		t.Errorf("alice's mail call: %d %s", code, body)
	}
	if code, body := send(t, http.MethodPost, bURL+"/api/v1/tools/mail__ping/call", bobKey, map[string]any{}); code != http.StatusOK || !strings.Contains(body, "mail needs your own credentials") {
		t.Errorf("bob's mail call without a credential: %d %s", code, body)
	}
	mailMu.Lock()
	if strings.Join(mailAuth, ",") != "Bearer "+aliceTok {
		t.Errorf("the OpenAPI service got %q, want alice's token once", mailAuth)
	}
	mailMu.Unlock()

	// What reached the remote server: each call with its user's own token.
	want := map[string]string{
		"alice-rest": aliceTok, "alice-mcp": aliceTok, "alice-agent": aliceTok, "alice-shared": aliceTok,
		"bob-rest": bobTok, "bob-mcp": bobTok, "bob-shared": bobTok,
	}
	got := map[string]int{}
	for _, c := range seen() {
		if w, ok := want[c.text]; !ok || c.auth != "Bearer "+w {
			t.Errorf("the remote server got the call %q with %q, want %q", c.text, c.auth, "Bearer "+w)
		}
		got[c.text]++
	}
	for text := range want {
		if got[text] != 1 {
			t.Errorf("the call %q reached the remote server %d times, want once", text, got[text])
		}
	}

	// Bob sees only his own connection, and cannot delete Alice's: his
	// delete removes his, on replica B; replica A stops using it at once.
	code, body = send(t, http.MethodGet, aURL+"/api/v1/connections", bobKey, nil)
	if code != http.StatusOK || strings.Count(body, `"server":"remote"`) != 1 {
		t.Errorf("bob's connections: %d %s", code, body)
	}
	bodies = append(bodies, body)
	if code, body := send(t, http.MethodDelete, bURL+"/api/v1/connections/remote", bobKey, nil); code != http.StatusNoContent {
		t.Fatalf("bob disconnecting: %d %s", code, body)
	}
	if code, _ := send(t, http.MethodDelete, bURL+"/api/v1/connections/remote", bobKey, nil); code != http.StatusNotFound {
		t.Errorf("bob disconnecting again: %d, want 404", code)
	}
	if body := rest(aURL, bobKey, "bob-after"); !strings.Contains(body, "remote needs your own credentials") {
		t.Errorf("bob's call on replica A after disconnecting on B: %s", body)
	}
	rest(aURL, aliceKey, "alice-after")
	last := seen()[len(seen())-1]
	if last.text != "alice-after" || last.auth != "Bearer "+aliceTok {
		t.Errorf("after bob's disconnect the remote server last got %+v, want alice's call with her token", last)
	}

	// No token anywhere a user or operator reads: answers, audit, logs.
	st, err := a.Store(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.ListAudit(t.Context(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	audit, _ := json.Marshal(recs)
	_, aliceAudit := send(t, http.MethodGet, aURL+"/api/v1/audit", aliceKey, nil)
	places := map[string]string{"answers": strings.Join(bodies, "\n"), "audit trail": string(audit), "audit API": aliceAudit, "logs": logs.String()}
	for where, text := range places {
		for _, tok := range []string{aliceTok, bobTok} {
			if strings.Contains(text, tok) {
				t.Errorf("the %s contain a user's token %q", where, tok)
			}
		}
	}
	if !strings.Contains(string(audit), "alice-rest") {
		t.Errorf("the audit trail lacks the calls it should record: %s", audit)
	}
}
