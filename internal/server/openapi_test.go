package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestOpenAPIListsEveryRoute checks the embedded document against the
// route table both ways: every documented route is served and every
// served route is documented.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	e := newEnv(t, nil)
	code, b := e.do(t, http.MethodGet, "/api/openapi.json", "", nil)
	if code != http.StatusOK {
		t.Fatalf("openapi: %d", code)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the document does not parse: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	documented := map[string]bool{}
	for p, ops := range doc.Paths {
		for m := range ops {
			documented[strings.ToUpper(m)+" "+p] = true
		}
	}
	served := map[string]bool{}
	for _, rt := range routes() {
		if rt.listing == undocumented {
			continue
		}
		k := rt.method + " " + rt.pattern
		served[k] = true
		if !documented[k] {
			t.Errorf("route %s is not in openapi.json", k)
		}
	}
	for k := range documented {
		if !served[k] {
			t.Errorf("openapi.json documents %s, which no route serves", k)
		}
	}
}

func TestMetricsAfterCall(t *testing.T) {
	e := newEnv(t, nil)
	if code, b := e.do(t, http.MethodPost, "/api/v1/tools/files__echo/call", e.key, map[string]any{}); code != 200 {
		t.Fatalf("call: %d %s", code, b)
	}
	m := e.srv.Metrics()
	m.ObserveModelRequest("default", "ok", 120e6, 10, 5)
	m.SetServerUp("files", true)
	m.ObserveRestart("files")
	code, b := e.do(t, http.MethodGet, "/metrics", e.key, nil)
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	for _, want := range []string{
		`switchboard_tool_calls_total{outcome="ok",server="files",tool="files__echo"} 1`,
		`switchboard_tool_call_duration_seconds_count{server="files"} 1`,
		`switchboard_http_requests_total{method="POST",route="/api/v1/tools/{name}/call",status="200"} 1`,
		`switchboard_http_request_duration_seconds_count{method="POST",route="/api/v1/tools/{name}/call"} 1`,
		`switchboard_model_requests_total{model="default",outcome="ok"} 1`,
		`switchboard_model_tokens_total{direction="in",model="default"} 10`,
		`switchboard_model_time_to_first_token_seconds_count{model="default"} 1`,
		`switchboard_mcp_server_up{server="files"} 1`,
		`switchboard_mcp_server_restarts_total{server="files"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
