package server

import (
	"context"
	"io"
	"iter"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/store"
)

// TestModelPermissions: a message or chat completion asking for a model
// the user's permissions leave out is refused before any run starts, and
// /v1/models lists only the user's models.
func TestModelPermissions(t *testing.T) {
	var runs atomic.Int32
	e := newEnv(t, func(o *Options) { o.Models = func() []string { return []string{"big", "small"} } })
	e.runner.run = func(_ context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		runs.Add(1)
		return events(agent.Event{Kind: agent.EventText, Text: "ok"}, doneEvent(req.RunID))
	}
	bob := e.addUser(t, "bob", store.RoleUser, "files__*", "model:small")
	code, b := e.do(t, http.MethodPost, "/api/v1/conversations", bob, map[string]string{"title": "t"})
	if code != http.StatusCreated {
		t.Fatalf("conversation: %d %s", code, b)
	}
	conv := decode[conversationJSON](t, b).ID
	post := func(model string) (int, string) {
		resp := e.send(t, http.MethodPost, "/api/v1/conversations/"+conv+"/messages", bob,
			postMessageBody{Message: "hi", Model: model}, http.Header{"Accept": {"text/event-stream"}})
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	if code, out := post("big"); code != http.StatusForbidden || !strings.Contains(out, "model_forbidden") {
		t.Errorf("posting with big: %d %s", code, out)
	}
	if code, out := post("huge"); code != http.StatusNotFound || !strings.Contains(out, "model_not_found") {
		t.Errorf("posting with an unknown model: %d %s", code, out)
	}
	code, b = e.do(t, http.MethodPost, "/v1/chat/completions", bob, map[string]any{"model": "big", "messages": []map[string]string{{"role": "user", "content": "hi"}}})
	if code != http.StatusForbidden {
		t.Errorf("chat completion with big: %d %s", code, b)
	}
	if n := runs.Load(); n != 0 {
		t.Errorf("%d runs started for refused models", n)
	}
	if code, out := post("small"); code != http.StatusOK || !strings.Contains(out, "ok") {
		t.Errorf("posting with small: %d %s", code, out)
	}
	code, b = e.do(t, http.MethodGet, "/v1/models", bob, nil)
	if code != http.StatusOK || strings.Contains(string(b), `"big"`) || !strings.Contains(string(b), `"small"`) {
		t.Errorf("bob's models: %d %s", code, b)
	}
	code, b = e.do(t, http.MethodGet, "/v1/models", e.key, nil)
	if code != http.StatusOK || !strings.Contains(string(b), `"big"`) {
		t.Errorf("alice's models (no model globs): %d %s", code, b)
	}
}
