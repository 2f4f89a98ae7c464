package mcpserve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/mcpserve"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// featuresServer serves the prompts and resources of two real stdio
// servers, "up" and "other", to callers whose permissions perms gives by
// caller ID, and returns the /mcp URL.
func featuresServer(t *testing.T, audit *auditLog, perms map[string][]string) (*mcpserve.Server, string, featuresPool) {
	t.Helper()
	pool := mcphost.NewPool([]mcphost.ServerConfig{mcptest.StdioServer(t, "up"), mcptest.StdioServer(t, "other")}, &mcphost.Options{PingInterval: -1})
	pool.Start(t.Context())
	t.Cleanup(func() { pool.Close() })
	fp := newFeaturesPool(pool)
	srv := newServer(t, tools.NewRegistry(nil), testGate(audit, mcpserve.ActionAllow), &mcpserve.Options{Features: fp})
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(callerHeader)
		h.ServeHTTP(w, r.WithContext(mcpserve.WithCaller(r.Context(), mcpserve.Caller{ID: id, Name: id, Permissions: perms[id]})))
	}))
	t.Cleanup(ts.Close)
	return srv, ts.URL + "/mcp", fp
}

// TestFeaturesAttacks sends what a client should not get through: URIs
// outside the gateway's scheme, naming an unknown server or one the caller
// may not use, prompt names without a server; and checks that the
// stateless protocol (2026-07-28) serves the same as sessions.
func TestFeaturesAttacks(t *testing.T) {
	audit := &auditLog{}
	_, url, _ := featuresServer(t, audit, map[string][]string{"alice": {"up__*"}})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			cs := connectHTTPVersion(t, url, "alice", version, nil)
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "switchboard://up/test://items/42"})
			if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != `{"item":true}` || res.Contents[0].URI != "switchboard://up/test://items/42" {
				t.Errorf("template read: %+v, %v; want the item under its gateway URI", res, err)
			}
			tpl, err := cs.ListResourceTemplates(t.Context(), nil)
			if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != "switchboard://up/test://items/{id}" {
				t.Errorf("templates: %+v, %v; want up's only, behind the prefix", tpl, err)
			}
			for uri, want := range map[string]string{
				"test://readme":                      "not found",
				"switchboard://nosuch/test://readme": "not found",
				"switchboard://up":                   "not found",
				"switchboard:///test://readme":       "not found",
				"switchboard://other/test://readme":  "do not cover the server other",
			} {
				if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(strings.ToLower(err.Error()), want) {
					t.Errorf("read %q: %v, want an error saying %q", uri, err, want)
				}
			}
			for name, want := range map[string]string{
				"greet":          "no prompt",
				"nosuch__greet":  "no prompt",
				"other__greet":   "do not include the prompt other__greet",
				"up__nosuchname": "getting prompt",
			} {
				if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name}); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("get %q: %v, want an error saying %q", name, err, want)
				}
			}
			got, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "up__greet", Arguments: map[string]string{"who": "Ana"}})
			if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*mcp.TextContent).Text != "Say hello to Ana" {
				t.Errorf("get up__greet: %+v, %v", got, err)
			}
		})
	}
}

// TestFeaturesStdio: the local user of stdio may use every server.
func TestFeaturesStdio(t *testing.T) {
	srv, _, _ := featuresServer(t, &auditLog{}, nil)
	cs := connectStdio(t, srv, nil)
	ps, err := cs.ListPrompts(t.Context(), nil)
	if err != nil || len(ps.Prompts) != 2 {
		t.Fatalf("stdio prompts: %+v, %v; want up__greet and other__greet", ps, err)
	}
	rs, err := cs.ListResources(t.Context(), nil)
	if err != nil || len(rs.Resources) != 2 {
		t.Fatalf("stdio resources: %+v, %v; want both servers' readme", rs, err)
	}
}

// TestFeaturesAuditDown: a get that cannot be recorded is not run.
func TestFeaturesAuditDown(t *testing.T) {
	audit := &auditLog{failing: true}
	_, url, _ := featuresServer(t, audit, map[string][]string{"alice": {"*"}})
	cs := connectHTTP(t, url, "alice", nil)
	if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "up__greet", Arguments: map[string]string{"who": "x"}}); err == nil || !strings.Contains(err.Error(), "audit log") {
		t.Errorf("get with the audit log down: %v, want a refusal naming the audit log", err)
	}
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "switchboard://up/test://readme"}); err == nil || !strings.Contains(err.Error(), "audit log") {
		t.Errorf("read with the audit log down: %v, want a refusal naming the audit log", err)
	}
}

// TestNoFeatures: without Options.Features neither capability is
// advertised, and nothing is listed (the SDK answers the list itself,
// empty).
func TestNoFeatures(t *testing.T) {
	srv := newServer(t, catalogue(), nil, nil)
	cs := connectHTTP(t, serveHTTP(t, srv).URL+"/mcp", "alice", nil)
	if c := cs.InitializeResult().Capabilities; c.Prompts != nil || c.Resources != nil {
		t.Errorf("capabilities %+v, want neither prompts nor resources", c)
	}
	if ps, err := cs.ListPrompts(t.Context(), nil); err == nil && len(ps.Prompts) > 0 {
		t.Errorf("prompts/list without Features: %+v", ps.Prompts)
	}
}

// TestFeaturesListChanged: a change of an upstream server's prompts or
// resources reaches connected clients as list_changed of both, and the
// marker used to send them is never listed.
func TestFeaturesListChanged(t *testing.T) {
	_, url, fp := featuresServer(t, &auditLog{}, map[string][]string{"alice": {"*"}})
	prompts, resources := make(chan struct{}, 4), make(chan struct{}, 4)
	cs := connectHTTP(t, url, "alice", &mcp.ClientOptions{
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { prompts <- struct{}{} },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { resources <- struct{}{} },
	})
	if c := cs.InitializeResult().Capabilities; c.Prompts == nil || !c.Prompts.ListChanged || c.Resources == nil || !c.Resources.ListChanged {
		t.Fatalf("capabilities %+v, want prompts and resources with listChanged", c)
	}
	fp.change()
	for name, ch := range map[string]chan struct{}{"prompts": prompts, "resources": resources} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s/list_changed within 10s", name)
		}
	}
	ps, err := cs.ListPrompts(t.Context(), nil)
	if err != nil || len(ps.Prompts) != 2 {
		t.Errorf("prompts after the change: %+v, %v; want up__greet and other__greet only", ps, err)
	}
	rs, err := cs.ListResources(t.Context(), nil)
	if err != nil || len(rs.Resources) != 2 {
		t.Errorf("resources after the change: %+v, %v; want the two readmes only", rs, err)
	}
}

// TestFeaturesDenyRule: an approval rule denying a server refuses its
// prompts and resources too, and is audited as denied.
func TestFeaturesDenyRule(t *testing.T) {
	pool := mcphost.NewPool([]mcphost.ServerConfig{mcptest.StdioServer(t, "up")}, &mcphost.Options{PingInterval: -1})
	pool.Start(t.Context())
	t.Cleanup(func() { pool.Close() })
	audit := &auditLog{}
	g := gate.New(&gate.Options{Audit: audit, Policy: gate.Policy{Rules: []gate.Rule{{Server: "up", Action: mcpserve.ActionDeny}}}})
	srv := newServer(t, tools.NewRegistry(nil), g, &mcpserve.Options{Features: newFeaturesPool(pool)})
	cs := connectHTTP(t, serveHTTP(t, srv).URL+"/mcp", "alice", nil)
	if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "up__greet", Arguments: map[string]string{"who": "x"}}); err == nil || !strings.Contains(err.Error(), "denied by the approval policy") {
		t.Errorf("get under a deny rule: %v, want a refusal naming the policy", err)
	}
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "switchboard://up/test://readme"}); err == nil || !strings.Contains(err.Error(), "denied by the approval policy") {
		t.Errorf("read under a deny rule: %v, want a refusal naming the policy", err)
	}
	audit.mu.Lock()
	defer audit.mu.Unlock()
	if len(audit.begun) != 2 || audit.begun[0].Approval != store.AuditDenied || audit.begun[1].Approval != store.AuditDenied {
		t.Errorf("audit %+v, want two denied records", audit.begun)
	}
}
