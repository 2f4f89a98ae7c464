package app

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/agent"
	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/store"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// serverEntry renders a test server as an mcpServers entry (JSON is YAML).
func serverEntry(sc mcphost.ServerConfig) string {
	b, _ := json.Marshal(map[string]any{"command": sc.Command, "args": sc.Args, "env": sc.Env})
	return "  " + sc.Name + ": " + string(b) + "\n"
}

// poll waits up to 10 s for cond, failing the test with what.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !mcptest.Poll(10*time.Second, cond) {
		t.Fatalf("%s: not within 10s", what)
	}
}

// TestFollowConfig edits the file an App follows and checks each part a
// reload applies: MCP servers, agents in the store, models, the default
// model; and that a refused edit changes nothing and is listed. The
// watcher and every supervisor it starts are gone when the App is closed.
func TestFollowConfig(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	path := filepath.Join(dir, "switchboard.yaml")
	keep := mcptest.StdioServer(t, "keep")
	two := mcptest.StdioServer(t, "two")
	head := "data: " + filepath.Join(dir, "data") + "\n"
	// Each edit replaces the file whole, as editors save: written in
	// place, a reload under load could read it between the truncation
	// and the write and apply an empty configuration in between.
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path+".new", []byte(head+text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
	}
	write("mcpServers:\n" + serverEntry(keep) +
		"models:\n  default: {provider: openai, baseURL: 'http://127.0.0.1:9/v1', model: a}\n" +
		"agents:\n  bob: {prompt: first}\n")
	load := func() (*config.Config, error) {
		return config.Load(config.LoadOptions{Path: path, Cwd: dir, Getenv: func(string) string { return "" }})
	}
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, &Options{Reload: load})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, err := a.Store(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Models()) != 1 {
		t.Fatalf("models: %+v", a.Models())
	}
	oldModel := a.Models()[0].Provider

	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { a.followConfig(ctx, load) })
	defer func() { cancel(); wg.Wait() }()

	pid := func(name string) int {
		for _, s := range a.pool.Status() {
			if s.Name == name && s.State == mcphost.StateReady {
				return s.PID
			}
		}
		return 0
	}
	keepPID := pid("keep")
	if keepPID == 0 {
		t.Fatalf("keep not ready: %+v", a.pool.Status())
	}
	prompt := func(name string) string {
		ag, err := st.GetAgent(t.Context(), name)
		if err != nil {
			return ""
		}
		return ag.Prompt
	}

	write("mcpServers:\n" + serverEntry(keep) + serverEntry(two) +
		"models:\n  default: {provider: openai, baseURL: 'http://127.0.0.1:9/v1', model: a}\n" +
		"  other: {provider: openai, baseURL: 'http://127.0.0.1:9/v1', model: b}\n" +
		"defaultModel: other\n" +
		"agents:\n  bob: {prompt: second}\n  ann: {prompt: hello}\n")
	poll(t, "server two ready", func() bool { return pid("two") != 0 || a.ConfigProblems() != nil })
	if p := a.ConfigProblems(); p != nil {
		t.Fatalf("edit refused: %v", p)
	}
	poll(t, "agent bob rewritten", func() bool { return prompt("bob") == "second" && prompt("ann") == "hello" })
	if got := pid("keep"); got != keepPID {
		t.Errorf("unchanged server's pid %d, was %d", got, keepPID)
	}
	if ms := a.Models(); len(ms) != 2 || ms[0].Provider != oldModel {
		t.Errorf("models after adding one: %d, the unchanged one rebuilt: %v", len(ms), ms[0].Provider != oldModel)
	}
	if m, err := a.agentModel(""); err != nil || m.Name != "other" {
		t.Errorf("the default model after the edit: %+v %v", m, err)
	}
	poll(t, "server two's tools in the catalogue", func() bool {
		return slices.ContainsFunc(a.Registry().List(), func(e tools.Entry) bool { return e.Origin.Server == "two" })
	})

	// A refused edit changes nothing and is listed until a valid one.
	write("mcpServers:\n  broken: {command: x, url: 'http://127.0.0.1:1/'}\n")
	poll(t, "refused edit listed", func() bool { return len(a.ConfigProblems()) > 0 })
	if pid("two") == 0 || pid("keep") != keepPID || prompt("bob") != "second" {
		t.Errorf("a refused edit changed the running configuration: %+v", a.pool.Status())
	}
	if !strings.Contains(strings.Join(a.ConfigProblems(), "\n"), "broken") {
		t.Errorf("problems do not name the entry: %v", a.ConfigProblems())
	}

	twoPID := pid("two")
	write("mcpServers:\n" + serverEntry(keep) + "agents:\n  bob: {prompt: second}\n")
	poll(t, "server two removed", func() bool { return len(a.pool.Status()) == 1 })
	if slices.ContainsFunc(a.Registry().List(), func(e tools.Entry) bool { return e.Origin.Server == "two" }) {
		t.Error("a removed server's tools are still in the catalogue")
	}
	if a.ConfigProblems() != nil {
		t.Errorf("problems after a valid edit: %v", a.ConfigProblems())
	}
	if alive(twoPID) {
		t.Errorf("removed server's process %d still runs", twoPID)
	}
	poll(t, "agent ann deleted", func() bool { return prompt("ann") == "" })
	if len(a.Models()) != 0 {
		t.Errorf("models after removing them all: %+v", a.Models())
	}
	if _, err := a.agentModel(""); err == nil {
		t.Error("a default model without models")
	}
	// An agent an admin created at run time is not the file's: edits of
	// the file leave it alone.
	if _, err := st.CreateAgent(t.Context(), store.Agent{Name: "own", Prompt: "mine", Source: store.SourceRuntime}); err != nil {
		t.Fatal(err)
	}
	write("mcpServers:\n" + serverEntry(keep) + "agents:\n  bob: {prompt: third}\n")
	poll(t, "agent bob rewritten again", func() bool { return prompt("bob") == "third" })
	if prompt("own") != "mine" {
		t.Errorf("a runtime agent was changed by a file edit: %q", prompt("own"))
	}
	if pid("keep") != keepPID {
		t.Errorf("unchanged server restarted along the way")
	}
}

// alive reports whether pid is a process that has not ended.
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// openapiService serves an OpenAPI document with one GET operation named
// op at /openapi.json until the test ends, and returns its base URL.
func openapiService(t *testing.T, op string) string {
	t.Helper()
	doc := `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
  "paths": {"/` + op + `": {"get": {"operationId": "` + op + `", "responses": {"200": {"description": "ok"}}}}}}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/openapi.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(doc))
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestReloadOpenAPI: a changed service's tools are replaced, a removed
// one's leave the catalogue, an unchanged one is not read again.
func TestReloadOpenAPI(t *testing.T) {
	first, second, other := openapiService(t, "listMail"), openapiService(t, "sendMail"), openapiService(t, "getWeather")
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.OpenAPIServers = map[string]config.OpenAPIServer{"mail": {URL: first}, "weather": {URL: other}}
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	names := func(server string) []string {
		var out []string
		for _, e := range a.Registry().List() {
			if e.Origin.Server == server {
				out = append(out, e.Origin.Name)
			}
		}
		return out
	}
	if got := names("mail"); !slices.Equal(got, []string{"listMail"}) {
		t.Fatalf("mail's tools at start: %v", got)
	}
	weather := a.openapiServers()[1]

	next := config.Default()
	next.Data = cfg.Data
	next.OpenAPIServers = map[string]config.OpenAPIServer{"mail": {URL: second}, "weather": {URL: other}}
	diff, err := a.Reload(t.Context(), next)
	if err != nil {
		t.Fatal(err)
	}
	if got := diff.String(); got != "~ openapiServers.mail" {
		t.Errorf("diff: %q", got)
	}
	if got := names("mail"); !slices.Equal(got, []string{"sendMail"}) {
		t.Errorf("mail's tools after the change: %v", got)
	}
	if a.openapiServers()[1] != weather {
		t.Error("the unchanged service was replaced")
	}

	last := config.Default()
	last.Data = cfg.Data
	last.OpenAPIServers = map[string]config.OpenAPIServer{"weather": {URL: other}}
	if _, err := a.Reload(t.Context(), last); err != nil {
		t.Fatal(err)
	}
	if got := names("mail"); got != nil {
		t.Errorf("a removed service's tools stay: %v", got)
	}
	if got := names("weather"); !slices.Equal(got, []string{"getWeather"}) {
		t.Errorf("weather's tools: %v", got)
	}
	for _, s := range a.Servers() {
		if s.Name == "mail" {
			t.Errorf("a removed service is still listed: %+v", s)
		}
	}
}

// TestFollowConfigMapSwap lays the file out as Kubernetes mounts a
// ConfigMap (switchboard.yaml -> ..data/switchboard.yaml, ..data -> a
// timestamped directory) and updates it as the kubelet does: a new
// directory, a new link renamed over ..data. The file's own name sees no
// event; the swap of ..data must still reload it.
func TestFollowConfigMapSwap(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	version := func(name, model string) {
		t.Helper()
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		text := "data: " + filepath.Join(dir, "state") + "\nmodels:\n  default: {provider: openai, baseURL: 'http://127.0.0.1:9/v1', model: " + model + "}\n"
		if err := os.WriteFile(filepath.Join(d, "switchboard.yaml"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	version("..2026_11_26_1", "first")
	for link, target := range map[string]string{"..data": "..2026_11_26_1", "switchboard.yaml": "..data/switchboard.yaml"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "switchboard.yaml")
	load := func() (*config.Config, error) {
		return config.Load(config.LoadOptions{Path: path, Cwd: dir, Getenv: func(string) string { return "" }})
	}
	cfg, err := load()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, &Options{Reload: load})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { a.followConfig(ctx, load) })
	defer func() { cancel(); wg.Wait() }()
	model := func() string { return a.Config().Models["default"].Model }
	poll(t, "the first read", func() bool { return model() == "first" })
	// The first read at the start of the watch has happened when the
	// record exists; the swap below must be seen as an event.
	poll(t, "the watch to begin", func() bool {
		_, err := os.Stat(filepath.Join(dir, "state", appliedFile))
		return err == nil
	})

	version("..2026_11_26_2", "second")
	if err := os.Symlink("..2026_11_26_2", filepath.Join(dir, "..data_tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	poll(t, "the swapped ConfigMap applied", func() bool { return model() == "second" })
}

// TestReloadAssistant: a changed assistant section reaches the runtime
// (built by the reload if need be) and is not reported as needing a
// restart: the next turn's request carries the new prompt.
func TestReloadAssistant(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies []string
	)
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer fake.Close()
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Models = map[string]config.Model{"default": {Provider: "openai", BaseURL: fake.URL + "/v1", Model: "m", ToolMode: "native"}}
	cfg.DefaultModel = "default"
	cfg.Assistant.Router = "off"
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	next := *cfg
	next.Assistant.Prompt = "You are terse."
	diff, err := a.Reload(t.Context(), &next)
	if err != nil {
		t.Fatal(err)
	}
	if !diff.Empty() {
		t.Errorf("an assistant change reported as %q", diff)
	}
	rt, err := a.Runtime(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range rt.Run(t.Context(), &agent.Request{Message: "hello", ConversationID: "c1"}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 || !strings.Contains(bodies[0], "You are terse.") {
		t.Errorf("the turn after the reload asked the model with %q", bodies)
	}
}
