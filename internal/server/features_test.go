package server

import (
	"context"
	"iter"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/gate"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// upstreams is two MCP servers' prompts and resources, "files" and
// "secrets", as the app's pool would give them; reached records every
// request that got through to a server.
type upstreams struct {
	mu      sync.Mutex
	reached []string // guarded by mu
}

var _ gate.Features = (*upstreams)(nil)

func (u *upstreams) reach(what string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.reached = append(u.reached, what)
}

func (u *upstreams) FeatureServers() []string { return []string{"files", "secrets"} }

func (u *upstreams) Prompts(_ context.Context, server string) ([]tools.Prompt, error) {
	return []tools.Prompt{{Name: "greet", Arguments: []tools.PromptArgument{{Name: "who", Required: true}}}}, nil
}

func (u *upstreams) GetPrompt(_ context.Context, server, name string, args map[string]string) (*tools.PromptResult, error) {
	u.reach("get " + server + " " + name)
	return &tools.PromptResult{Messages: []tools.PromptMessage{{Role: "user", Content: tools.Content{Type: tools.ContentText, Text: "Say hello to " + args["who"] + " from " + server}}}}, nil
}

func (u *upstreams) Resources(_ context.Context, server string) ([]tools.Resource, error) {
	return []tools.Resource{{URI: "file:///readme", Name: "readme", MIMEType: "text/plain"}}, nil
}

func (u *upstreams) ResourceTemplates(_ context.Context, server string) ([]tools.ResourceTemplate, error) {
	return []tools.ResourceTemplate{{URITemplate: "file:///{name}", Name: "file"}}, nil
}

func (u *upstreams) ReadResource(_ context.Context, server, uri string) ([]tools.ResourceContents, error) {
	u.reach("read " + server + " " + uri)
	return []tools.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "the contents of " + uri + " on " + server}}, nil
}

func (u *upstreams) Complete(_ context.Context, server string, req tools.CompleteRequest) (*tools.Completion, error) {
	u.reach("complete " + server + " " + req.Argument)
	return &tools.Completion{Values: []string{req.Value + "1"}}, nil
}

// TestFeaturesREST: alice (files__echo* only, the env's) sees no prompt
// or resource and is refused on get, read and complete by name, also by a
// crafted URI; bob (files__*) uses those of files and nothing of secrets,
// which a deny rule covers as well; nothing refused reaches a server, and
// refusals are audited.
func TestFeaturesREST(t *testing.T) {
	up := &upstreams{}
	e := newEnvGate(t, &gate.Options{Policy: gate.Policy{Rules: []gate.Rule{{Server: "secrets", Action: gate.ActionDeny}}}},
		func(o *Options) { o.Features = up })
	bob := e.addUser(t, "bob", store.RoleUser, "files__*", "secrets__*")

	type listed struct {
		Items []struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"items"`
		Templates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"templates"`
	}
	if code, b := e.do(t, "GET", "/api/v1/prompts", e.key, nil); code != 200 || len(decode[listed](t, b).Items) != 0 {
		t.Errorf("alice's prompts: %d %s, want none", code, b)
	}
	if code, b := e.do(t, "GET", "/api/v1/resources", e.key, nil); code != 200 || len(decode[listed](t, b).Items)+len(decode[listed](t, b).Templates) != 0 {
		t.Errorf("alice's resources: %d %s, want none", code, b)
	}
	_, b := e.do(t, "GET", "/api/v1/prompts", bob, nil)
	if got := decode[listed](t, b).Items; len(got) != 2 || got[0].Name != "files__greet" {
		t.Errorf("bob's prompts %s, want files__greet and secrets__greet (listed; the deny rule refuses the get)", b)
	}
	_, b = e.do(t, "GET", "/api/v1/resources", bob, nil)
	if l := decode[listed](t, b); len(l.Items) != 2 || l.Items[0].URI != "switchboard://files/file:///readme" || l.Templates[0].URITemplate != "switchboard://files/file:///{name}" {
		t.Errorf("bob's resources %s", b)
	}

	// Allowed: bob gets, reads and completes on files.
	code, b := e.do(t, "POST", "/api/v1/prompts/files__greet", bob, map[string]any{"arguments": map[string]string{"who": "Ada"}})
	if code != 200 || !strings.Contains(string(b), "Say hello to Ada from files") {
		t.Errorf("bob's get: %d %s", code, b)
	}
	code, b = e.do(t, "POST", "/api/v1/resources/read", bob, map[string]any{"uri": "switchboard://files/file:///etc/passwd"})
	if code != 200 || !strings.Contains(string(b), `"uri":"switchboard://files/file:///etc/passwd"`) {
		t.Errorf("bob's read: %d %s", code, b)
	}
	code, b = e.do(t, "POST", "/api/v1/complete", bob, map[string]any{"ref": map[string]string{"template": "switchboard://files/file:///{name}"}, "argument": "name", "value": "a"})
	if code != 200 || !strings.Contains(string(b), `"values":["a1"]`) {
		t.Errorf("bob's completion: %d %s", code, b)
	}

	up.mu.Lock()
	up.reached = nil
	up.mu.Unlock()
	refused := []struct {
		name, key, path string
		body            any
		status          int
	}{
		{"alice gets by name", e.key, "/api/v1/prompts/files__greet", map[string]any{}, http.StatusForbidden},
		{"alice reads by uri", e.key, "/api/v1/resources/read", map[string]any{"uri": "switchboard://files/file:///readme"}, http.StatusForbidden},
		{"alice completes", e.key, "/api/v1/complete", map[string]any{"ref": map[string]string{"prompt": "files__greet"}, "argument": "who"}, http.StatusForbidden},
		{"a uri outside the scheme", bob, "/api/v1/resources/read", map[string]any{"uri": "file:///etc/passwd"}, http.StatusNotFound},
		{"a uri of no server", bob, "/api/v1/resources/read", map[string]any{"uri": "switchboard://nosuch/file:///readme"}, http.StatusNotFound},
		{"a uri with an empty server", bob, "/api/v1/resources/read", map[string]any{"uri": "switchboard:///files/x"}, http.StatusNotFound},
		{"a prompt without a server", bob, "/api/v1/prompts/greet", map[string]any{}, http.StatusNotFound},
		{"a denied server's prompt", bob, "/api/v1/prompts/secrets__greet", map[string]any{}, http.StatusForbidden},
		{"a denied server's resource", bob, "/api/v1/resources/read", map[string]any{"uri": "switchboard://secrets/file:///readme"}, http.StatusForbidden},
		{"a denied server's completion", bob, "/api/v1/complete", map[string]any{"ref": map[string]string{"prompt": "secrets__greet"}, "argument": "who"}, http.StatusForbidden},
		{"a completion naming both", bob, "/api/v1/complete", map[string]any{"ref": map[string]string{"prompt": "files__greet", "template": "switchboard://files/x"}, "argument": "who"}, http.StatusNotFound},
	}
	for _, c := range refused {
		if code, b := e.do(t, "POST", c.path, c.key, c.body); code != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, code, b, c.status)
		}
	}
	// A message can carry neither past the gate either.
	conv := e.createConversation(t)
	resp := e.send(t, "POST", "/api/v1/conversations/"+conv+"/messages", e.key, map[string]any{"prompt": map[string]any{"name": "files__greet"}}, http.Header{"Accept": {"text/event-stream"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("alice running a prompt she may not get: %d, want 403", resp.StatusCode)
	}
	resp = e.send(t, "POST", "/api/v1/conversations/"+conv+"/messages", e.key, map[string]any{"message": "hi", "resources": []string{"switchboard://files/file:///readme"}}, http.Header{"Accept": {"text/event-stream"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("alice attaching a resource she may not read: %d, want 403", resp.StatusCode)
	}
	up.mu.Lock()
	if len(up.reached) != 0 {
		t.Errorf("refused requests reached a server: %v", up.reached)
	}
	up.mu.Unlock()
	recs, err := e.db.ListAudit(t.Context(), store.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs {
		count[r.User+" "+r.Tool+" "+string(r.Approval)]++
	}
	for k, n := range map[string]int{
		"alice files__greet forbidden": 3, "alice files__resource forbidden": 2,
		"bob secrets__greet denied": 2, "bob secrets__resource denied": 1, "bob files__greet auto": 1, "bob files__resource auto": 1,
	} {
		if count[k] != n {
			t.Errorf("audit %q: %d records, want %d (all: %v)", k, count[k], n, count)
		}
	}
}

// TestPromptAndResourceInAMessage: a message that runs a prompt gives the
// run the prompt's text as the user's message, and attached resources as
// parts marked with their URI.
func TestPromptAndResourceInAMessage(t *testing.T) {
	up := &upstreams{}
	var got *agent.Request
	e := newEnv(t, func(o *Options) { o.Features = up })
	e.runner.run = func(_ context.Context, req *agent.Request) iter.Seq2[agent.Event, error] {
		got = req
		return events(doneEvent(req.RunID))
	}
	bob := e.addUser(t, "bob", store.RoleUser, "files__*")
	code, b := e.do(t, http.MethodPost, "/api/v1/conversations", bob, map[string]string{"title": "t"})
	if code != http.StatusCreated {
		t.Fatalf("creating conversation: %d %s", code, b)
	}
	id := decode[conversationJSON](t, b).ID
	resp := e.send(t, "POST", "/api/v1/conversations/"+id+"/messages", bob, map[string]any{
		"prompt":    map[string]any{"name": "files__greet", "arguments": map[string]string{"who": "Ada"}},
		"resources": []string{"switchboard://files/file:///readme"},
	}, http.Header{"Accept": {"text/event-stream"}})
	readEvents(t, resp.Body, nil)
	resp.Body.Close()
	if got == nil {
		t.Fatal("the run did not start")
	}
	if got.Message != "Say hello to Ada from files" || len(got.Attachments) != 1 || got.Attachments[0].URI != "switchboard://files/file:///readme" ||
		!strings.Contains(got.Attachments[0].Text, "the contents of file:///readme on files") {
		t.Errorf("run request: message %q, attachments %+v", got.Message, got.Attachments)
	}
}
