package app

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/config"
	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// embedServer is an OpenAI-compatible /embeddings endpoint that gives each
// text a vector from the hash of its words, and counts the texts it was
// sent.
type embedServer struct {
	mu    sync.Mutex
	texts []string // guarded by mu
}

func (e *embedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Input []string `json:"input"`
	}
	if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.texts = append(e.texts, in.Input...)
	e.mu.Unlock()
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Data []item `json:"data"`
	}{}
	for i, text := range in.Input {
		v := make([]float32, 16)
		for _, w := range strings.Fields(strings.ToLower(text)) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%16]++
		}
		out.Data = append(out.Data, item{Index: i, Embedding: v})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func (e *embedServer) sent() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.texts...)
}

func toolSearchApp(t *testing.T, data string, embeddings bool, emb *embedServer) *App {
	t.Helper()
	srv := httptest.NewServer(emb)
	t.Cleanup(srv.Close)
	mcp := mcptest.StdioServer(t, "test")
	cfg := config.Default()
	cfg.Data = data
	cfg.Builtin.Roots = []string{data} // the file tools' descriptions name their roots: one text for every app here
	cfg.MCPServers = map[string]config.MCPServer{"test": {Command: mcp.Command, Args: mcp.Args, Env: mcp.Env, Timeout: time.Minute, ShutdownTimeout: time.Second}}
	cfg.Models = map[string]config.Model{"oa": {Provider: "openai", BaseURL: srv.URL + "/v1", Model: "chat", APIKey: config.Secret("k"), ToolMode: "native", Timeout: time.Minute}}
	cfg.DefaultModel = "oa"
	cfg.ToolSearch.MaxTools = 8
	if embeddings {
		cfg.ToolSearch.Embeddings = config.ToolEmbeddings{Model: "oa", EmbeddingModel: "embed-small"}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if err := a.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestToolSearchWiring: the MCP server's instructions reach the ranker;
// without the embeddings setting nothing is sent anywhere; with it the
// catalogue is embedded once, cached in the data directory, and reused by
// another process on the same directory.
func TestToolSearchWiring(t *testing.T) {
	data := t.TempDir()
	emb := &embedServer{}
	a := toolSearchApp(t, data, false, emb)
	opts := a.rankOptions(t.Context())
	if !strings.Contains(opts.Instructions["test"], "use echo to check the connection") {
		t.Errorf("instructions = %q", opts.Instructions)
	}
	if opts.Embeddings != nil {
		t.Error("embeddings without the setting")
	}
	if again := a.rankOptions(t.Context()); again != opts {
		t.Error("unchanged options came back as a new value, which rebuilds the index")
	}
	rt, err := a.Runtime(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.Preview(t.Context(), "", "check the connection", 3)
	if err != nil {
		t.Fatal(err)
	}
	fromInstructions := false
	for _, r := range p.Ranked {
		for _, m := range r.Matches {
			fromInstructions = fromInstructions || strings.HasPrefix(r.Name, "test__") && m.Field == "server text" && m.Term == "check"
		}
	}
	if !p.Deferred || !fromInstructions {
		t.Errorf("the server's instructions did not count: %+v", p)
	}
	if sent := emb.sent(); len(sent) != 0 {
		t.Errorf("ranking without the embeddings setting sent %d texts", len(sent))
	}

	a2 := toolSearchApp(t, data, true, emb)
	rt2, err := a2.Runtime(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p2, err := rt2.Preview(t.Context(), "", "check the connection", 3)
	if err != nil {
		t.Fatal(err)
	}
	catalogue := len(a2.Registry().List())
	if sent := emb.sent(); len(sent) != catalogue+1 { // the catalogue, then the request
		t.Errorf("sent %d texts for %d tools", len(sent), catalogue)
	}
	withVector := false
	for _, r := range p2.Ranked {
		withVector = withVector || r.Parts.Embedding != 0
	}
	if !withVector {
		t.Error("no tool scored by embedding")
	}
	files, _ := os.ReadDir(filepath.Join(data, "embeddings"))
	if len(files) == 0 {
		t.Fatal("no embedding cache in the data directory")
	}

	before := len(emb.sent())
	a3 := toolSearchApp(t, data, true, emb)
	rt3, err := a3.Runtime(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt3.Preview(t.Context(), "", "check the connection", 3); err != nil {
		t.Fatal(err)
	}
	if n := len(emb.sent()) - before; n != 1 {
		t.Errorf("a restart on the same data directory sent %d texts, want only the request's", n)
	}
}
