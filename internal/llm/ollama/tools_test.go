package ollama_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/ollama"
)

// showQwen is POST /api/show as Ollama documents it (docs/api.md, "Show
// Model Information"), for a model with the tools capability; model_info
// trimmed.
const showQwen = `{"modelfile":"FROM qwen3:8b\n","parameters":"stop \"<|im_start|>\"","template":"{{- if .Tools }}<tools>{{ range .Tools }}{{ . }}{{ end }}</tools>{{ end }}",
 "details":{"parent_model":"","format":"gguf","family":"qwen3","families":["qwen3"],"parameter_size":"8.2B","quantization_level":"Q4_K_M"},
 "model_info":{"general.architecture":"qwen3","qwen3.context_length":40960},"capabilities":["completion","tools","thinking"],"modified_at":"2025-06-01T10:00:00Z"}`

func newOllama(t *testing.T, host string, timeout time.Duration, client *http.Client) *ollama.Client {
	t.Helper()
	c, err := ollama.New(&ollama.Options{
		Host: host, Model: "qwen3:8b", ProbeTimeout: timeout,
		Headers:     map[string]string{"Authorization": "Bearer proxy-secret"},
		HTTPOptions: llm.HTTPOptions{MaxRetries: -1, HTTPClient: client},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestToolReportOllama checks the reasons and that the answer is asked once.
func TestToolReportOllama(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/api/show" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, showQwen)
	}))
	defer srv.Close()
	c := newOllama(t, srv.URL, 5*time.Second, nil)
	for range 3 {
		got, err := c.ToolReport(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		want := llm.ToolReport{Answer: llm.ToolsNative, Source: "ollama", Reason: `"tools" capability`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ToolReport mismatch (-want +got):\n%s", diff)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("/api/show asked %d times, want once", n)
	}
}

// TestToolReportOllamaHangs: a server that never answers costs the probe
// timeout, leaves no goroutine, and the report says so.
func TestToolReportOllamaHangs(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	c := newOllama(t, srv.URL, 150*time.Millisecond, &http.Client{Transport: transport})
	start := time.Now()
	got, err := c.ToolReport(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := llm.ToolReport{Source: "ollama", Reason: "/api/show did not answer within 150ms"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolReport mismatch (-want +got):\n%s", diff)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v, want about 150ms", took)
	}
}

// TestToolReportOllamaNoRedirect: a redirect to another host is not
// followed, so the proxy credential in Headers stays with the configured
// host.
func TestToolReportOllamaNoRedirect(t *testing.T) {
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Add(1)
		io.WriteString(w, showQwen)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	got, err := newOllama(t, srv.URL, 5*time.Second, nil).ToolReport(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := llm.ToolReport{Source: "ollama", Reason: "/api/show answered 307 Temporary Redirect"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolReport mismatch (-want +got):\n%s", diff)
	}
	if n := leaked.Load(); n != 0 {
		t.Errorf("the other host received %d requests", n)
	}
}
