package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// fakeServers is a hand-written [Servers].
type fakeServers struct {
	restarted []string
}

func (f *fakeServers) Status() []ServerStatus {
	return []ServerStatus{{Name: "files", Kind: "mcp", State: "ready", Tools: 2}}
}

func (f *fakeServers) Restart(_ context.Context, name string) error {
	if name != "files" {
		return fmt.Errorf("server %q: %w", name, ErrNoServer)
	}
	f.restarted = append(f.restarted, name)
	return nil
}

func (f *fakeServers) Stderr(name string) ([]string, bool) {
	if name != "files" {
		return nil, false
	}
	return []string{"listening"}, true
}

func TestRoutesHappyPath(t *testing.T) {
	servers := &fakeServers{}
	e := newEnv(t, func(o *Options) {
		o.Servers = servers
		// The gateway stand-in answers with the user it was handed.
		o.MCP = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, _ := UserFrom(r.Context())
			writeJSON(w, http.StatusOK, map[string]string{"mcpUser": u.Name})
		})
	})
	conv := e.createConversation(t)

	tests := []struct {
		name         string
		method, path string
		body         any
		wantStatus   int
		// wantIn is a substring the body must contain.
		wantIn string
	}{
		{"healthz", "GET", "/healthz", nil, 200, `"ok"`},
		{"readyz", "GET", "/readyz", nil, 200, `"ready"`},
		{"openapi", "GET", "/api/openapi.json", nil, 200, `"openapi"`},
		{"list conversations", "GET", "/api/v1/conversations", nil, 200, conv},
		{"get conversation", "GET", "/api/v1/conversations/" + conv, nil, 200, conv},
		{"create agent", "POST", "/api/v1/agents", map[string]any{"name": "bob", "prompt": "mail", "servers": []string{"email"}}, 201, `"bob"`},
		{"list agents", "GET", "/api/v1/agents", nil, 200, `"bob"`},
		{"get agent", "GET", "/api/v1/agents/bob", nil, 200, `"mail"`},
		{"update agent", "PUT", "/api/v1/agents/bob", map[string]any{"prompt": "post", "servers": []string{"email"}, "version": 1}, 200, `"post"`},
		{"assign server", "PUT", "/api/v1/agents/bob/servers/files", nil, 200, `"files"`},
		{"remove server", "DELETE", "/api/v1/agents/bob/servers/email", nil, 200, `"servers":["files"]`},
		{"models", "GET", "/v1/models", nil, 200, `"bob"`},
		{"delete agent", "DELETE", "/api/v1/agents/bob", nil, 204, ""},
		{"servers", "GET", "/api/v1/servers", nil, 200, `"ready"`},
		{"stderr", "GET", "/api/v1/servers/files/stderr", nil, 200, `"listening"`},
		{"restart", "POST", "/api/v1/servers/files/restart", nil, 202, `"restarting"`},
		{"tools", "GET", "/api/v1/tools", nil, 200, `"files__echo"`},
		{"call tool", "POST", "/api/v1/tools/files__echo/call", map[string]any{"arguments": map[string]string{"text": "hi"}}, 200, `echo {\"text\":\"hi\"}`},
		{"audit", "GET", "/api/v1/audit?tool=files__*&limit=5", nil, 200, `"user":"alice"`},
		{"approvals", "GET", "/api/v1/approvals", nil, 200, `"items":[]`},
		{"delete conversation", "DELETE", "/api/v1/conversations/" + conv, nil, 204, ""},
		{"web", "GET", "/", nil, 200, "Switchboard"},
		{"mcp", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200, `"mcpUser":"alice"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, b := e.do(t, tc.method, tc.path, e.key, tc.body)
			if code != tc.wantStatus || !strings.Contains(string(b), tc.wantIn) {
				t.Fatalf("%s %s = %d %s; want %d containing %s", tc.method, tc.path, code, b, tc.wantStatus, tc.wantIn)
			}
		})
	}
	if diff := cmp.Diff([]string{"files"}, servers.restarted); diff != "" {
		t.Errorf("restarts mismatch (-want +got):\n%s", diff)
	}
}

func TestErrorShapes(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxBodyBytes = 64 })
	bob := e.addUser(t, "bob", store.RoleUser, "files__echo*")
	if code, b := e.do(t, "POST", "/api/v1/agents", e.key, map[string]any{"name": "dup"}); code != 201 {
		t.Fatalf("creating agent: %d %s", code, b)
	}
	conv := e.createConversation(t)
	tests := []struct {
		name         string
		method, path string
		key          string
		body         any
		wantStatus   int
		wantCode     string
	}{
		{"no key", "GET", "/api/v1/conversations", "-", nil, 401, "unauthorized"},
		{"unknown conversation", "GET", "/api/v1/conversations/nope", "", nil, 404, "not_found"},
		{"unknown agent", "GET", "/api/v1/agents/nope", "", nil, 404, "not_found"},
		{"duplicate agent", "POST", "/api/v1/agents", "", map[string]any{"name": "dup"}, 409, "conflict"},
		{"bad agent name", "POST", "/api/v1/agents", "", map[string]any{"name": "a b"}, 400, "invalid_request"},
		{"stale version", "PUT", "/api/v1/agents/dup", "", map[string]any{"version": 7}, 409, "conflict"},
		{"malformed json", "POST", "/api/v1/conversations", "", `{"title":`, 400, "invalid_json"},
		{"unknown field", "POST", "/api/v1/conversations", "", `{"titel":"x"}`, 400, "invalid_json"},
		{"too large", "POST", "/api/v1/conversations", "", `{"title":"` + strings.Repeat("x", 100) + `"}`, 413, "too_large"},
		{"unknown agent for a run", "POST", "/api/v1/conversations/CONV/messages", "", map[string]string{"message": "hi", "agent": "ghost"}, 404, "not_found"},
		{"not sse", "POST", "/api/v1/conversations/x/messages", "", map[string]string{"message": "hi"}, 406, "not_acceptable"},
		{"bad decision", "POST", "/api/v1/approvals/x", "", map[string]string{"decision": "maybe"}, 400, "invalid_request"},
		{"unknown approval", "POST", "/api/v1/approvals/x", "", map[string]string{"decision": "deny"}, 404, "not_found"},
		{"unknown tool", "POST", "/api/v1/tools/nope/call", "", map[string]any{}, 404, "not_found"},
		{"forbidden tool", "POST", "/api/v1/tools/files__secret/call", "", map[string]any{}, 404, "not_found"},
		{"unknown server", "GET", "/api/v1/servers/nope/stderr", "", nil, 404, "not_found"},
		{"bad audit time", "GET", "/api/v1/audit?since=yesterday", "", nil, 400, "invalid_request"},
		{"other's audit", "GET", "/api/v1/audit?user=alice", "BOB", nil, 403, "forbidden"},
		{"agent by a non-admin", "POST", "/api/v1/agents", "BOB", map[string]any{"name": "x"}, 403, "forbidden"},
		{"unknown api path", "GET", "/api/v1/nope", "", nil, 404, "not_found"},
		{"unknown model", "POST", "/v1/chat/completions", "", map[string]any{"model": "nope", "messages": []map[string]string{{"role": "user", "content": "hi"}}}, 404, "model_not_found"},
		{"no mcp", "POST", "/mcp", "", "{}", 404, "not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := e.key
			switch tc.key {
			case "-":
				key = ""
			case "BOB":
				key = bob
			case "":
			default:
				key = tc.key
			}
			path := strings.Replace(tc.path, "CONV", conv, 1)
			hdr := http.Header{"Accept": {"text/event-stream"}}
			if tc.wantCode == "not_acceptable" {
				hdr = nil
			}
			resp := e.send(t, tc.method, path, key, tc.body, hdr)
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			code := resp.StatusCode
			got := decode[errorBody](t, b)
			if code != tc.wantStatus || got.Error.Code != tc.wantCode || got.Error.Message == "" {
				t.Fatalf("%s %s = %d %s; want %d with code %s", tc.method, tc.path, code, b, tc.wantStatus, tc.wantCode)
			}
		})
	}
}

func TestInternalErrorsDoNotLeak(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.Servers = &fakeServers{}
		o.Ping = func(context.Context) error { return errors.New("secret dsn postgres://u:pw@db") }
	})
	code, b := e.do(t, "GET", "/readyz", e.key, nil)
	if code != http.StatusServiceUnavailable || strings.Contains(string(b), "pw@db") {
		t.Fatalf("readyz = %d %s; want 503 without the cause", code, b)
	}
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}
	code, b = e.do(t, "GET", "/api/v1/agents", e.key, nil)
	if code != http.StatusInternalServerError || strings.Contains(string(b), "sql") {
		t.Fatalf("after close = %d %s; want 500 without internal text", code, b)
	}
}

func TestReadyzHintWithoutModels(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Models = nil })
	code, b := e.do(t, "GET", "/readyz", e.key, nil)
	got := decode[readiness](t, b)
	if code != 200 || !strings.Contains(got.Hint, "OPENAI_API_KEY") {
		t.Fatalf("readyz = %d %s; want 200 with a hint naming OPENAI_API_KEY", code, b)
	}
}

// TestReadyzListsRefusedConfig: a refused edit of the config file leaves
// the service ready (it runs the configuration it had) and /readyz says
// what to fix; once an edit is applied the list goes.
func TestReadyzListsRefusedConfig(t *testing.T) {
	var problems []string
	e := newEnv(t, func(o *Options) { o.ConfigProblems = func() []string { return problems } })
	problems = []string{"mcpServers.files: set either command or url, not both"}
	code, b := e.do(t, "GET", "/readyz", e.key, nil)
	got := decode[readiness](t, b)
	if code != 200 || got.Status != "ready" || len(got.Config) != 1 || !strings.Contains(got.Hint, "refused") ||
		!strings.Contains(got.Hint, "switchboard config trust") {
		t.Fatalf("readyz = %d %s; want 200, ready, the problem and a hint", code, b)
	}
	problems = nil
	code, b = e.do(t, "GET", "/readyz", e.key, nil)
	if got := decode[readiness](t, b); code != 200 || got.Config != nil || strings.Contains(got.Hint, "refused") {
		t.Fatalf("readyz after a valid edit = %d %s", code, b)
	}
}

// TestNewWithoutOptions checks that nil Options mean defaults: the server
// answers, with anonymous access off (no users means 401, not a panic).
func TestNewWithoutOptions(t *testing.T) {
	db := openDB(t)
	srv := New(StoresOf(db), &fakeRunner{}, tools.NewRegistry(nil), gate.New(nil), nil)
	ts := newTestServer(t, srv)
	for path, want := range map[string]int{"/healthz": http.StatusOK, "/api/v1/tools": http.StatusUnauthorized} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.URL+path, nil)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// TestNewWithoutGatePanics: the gate is required; a missing one is a wiring
// bug, not a server whose tool calls skip permissions, limits and audit.
func TestNewWithoutGatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("server.New with a nil gate did not panic")
		}
	}()
	New(StoresOf(openDB(t)), &fakeRunner{}, tools.NewRegistry(nil), nil, nil)
}

// TestNewWithoutAStoreGroupPanics: every route group's store is required;
// a missing one is a wiring bug that would otherwise surface as a nil
// dereference in the first request of that group.
func TestNewWithoutAStoreGroupPanics(t *testing.T) {
	db := openDB(t)
	for name, drop := range map[string]func(*Stores){
		"conversations": func(s *Stores) { s.Conversations = nil },
		"agents":        func(s *Stores) { s.Agents = nil },
		"agent servers": func(s *Stores) { s.AgentServers = nil },
		"approvals":     func(s *Stores) { s.Approvals = nil },
		"audit":         func(s *Stores) { s.Audit = nil },
		"users":         func(s *Stores) { s.Users = nil },
	} {
		t.Run(name, func(t *testing.T) {
			st := StoresOf(db)
			drop(&st)
			defer func() {
				if recover() == nil {
					t.Errorf("server.New without the %s store did not panic", name)
				}
			}()
			New(st, &fakeRunner{}, tools.NewRegistry(nil), gate.New(nil), nil)
		})
	}
}
