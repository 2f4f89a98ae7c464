package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModels(t *testing.T) {
	openai := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"gpt-4o-mini","object":"model"}]}`))
	}))
	defer openai.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()

	dir := t.TempDir()
	cfg := `models:
  good: {provider: openai, baseURL: "` + openai.URL + `/v1", model: gpt-4o-mini, apiKey: "${KEY}"}
  wrongmodel: {provider: openai, baseURL: "` + openai.URL + `/v1", model: nope, apiKey: "${KEY}"}
  down: {provider: ollama, baseURL: "` + deadURL + `", model: llama3.2}
defaultModel: good
`
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, map[string]string{"KEY": "sk-test"}, "models", "--timeout", "5s")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (two models fail)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] = l
		}
	}
	if l := lines["good"]; !strings.Contains(l, "(default)") || !strings.Contains(l, "ok (") {
		t.Errorf("good: %q", l)
	}
	if l := lines["wrongmodel"]; !strings.Contains(l, "not served") {
		t.Errorf("wrongmodel: %q", l)
	}
	if l := lines["down"]; !strings.Contains(l, "error:") {
		t.Errorf("down: %q", l)
	}
	if strings.Contains(r.stdout+r.stderr, "sk-test") {
		t.Errorf("the API key was printed")
	}
}

func TestModelsNoneConfigured(t *testing.T) {
	r := run(t, t.TempDir(), nil, "models")
	if r.code != 2 || !strings.Contains(r.stderr, "OPENAI_API_KEY") {
		t.Errorf("exit %d, stderr %q; want 2 and a hint naming the variables", r.code, r.stderr)
	}
}

// TestModelsToolMode runs `switchboard models` against servers speaking
// Ollama's and llama.cpp's published formats (bodies written from Ollama
// docs/api.md "Show Model Information" and llama.cpp
// tools/server/README.md "GET /props" with common/jinja/caps.cpp) and checks
// the TOOLS column and the JSON fields.
func TestModelsToolMode(t *testing.T) {
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "GET /v1/models":
			w.Write([]byte(`{"object":"list","data":[{"id":"llava:latest","object":"model","created":1,"owned_by":"library"}]}`))
		case "GET /api/tags":
			w.Write([]byte(`{"models":[{"name":"llava:latest","model":"llava:latest"},{"name":"qwen3:8b","model":"qwen3:8b"}]}`))
		case "POST /api/show":
			body, _ := io.ReadAll(r.Body)
			if strings.Contains(string(body), "qwen3") {
				w.Write([]byte(`{"template":"{{ if .Tools }}{{ range .Tools }}{{ . }}{{ end }}{{ end }}","details":{"format":"gguf","family":"qwen3"},"model_info":{"general.architecture":"qwen3"},"capabilities":["completion","tools","thinking"]}`))
				return
			}
			w.Write([]byte(`{"template":"{{ .System }}\nUSER: {{ .Prompt }}\nASSISTANT: ","details":{"format":"gguf","family":"llama"},"model_info":{"general.architecture":"llama"},"capabilities":["completion","vision"]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer ollama.Close()
	llamacpp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/models":
			w.Write([]byte(`{"object":"list","data":[{"id":"qwen","object":"model","owned_by":"llamacpp","meta":null}]}`))
		case "/props":
			w.Write([]byte(`{"default_generation_settings":{"n_ctx":8192,"params":{}},"total_slots":1,"chat_template":"{% if tools %}<tools>{% endif %}",
				"chat_template_caps":{"supports_tools":true,"supports_tool_calls":true,"supports_system_role":true},"build_info":"b7310"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer llamacpp.Close()
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model","owned_by":"vllm","max_model_len":4096}]}`))
	}))
	defer silent.Close()

	dir := t.TempDir()
	cfg := `models:
  llava: {provider: openai, baseURL: "` + ollama.URL + `/v1", model: llava}
  qwen3: {provider: ollama, baseURL: "` + ollama.URL + `", model: "qwen3:8b"}
  cpp: {provider: openai, baseURL: "` + llamacpp.URL + `/v1", model: qwen}
  forced: {provider: openai, baseURL: "` + llamacpp.URL + `/v1", model: qwen, toolMode: text}
  vllm: {provider: openai, baseURL: "` + silent.URL + `/v1", model: m}
defaultModel: cpp
`
	if err := os.WriteFile(filepath.Join(dir, "switchboard.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, nil, "models", "--timeout", "5s")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := map[string]string{
		"llava":  `auto -> text (ollama: no "tools" capability)`,
		"qwen3":  `auto -> native (ollama: "tools" capability)`,
		"cpp":    `auto -> native (llama.cpp: chat template renders tools, per chat_template_caps)`,
		"forced": `text (configured)`,
		"vllm":   `auto -> native (model list: the entry does not mention tools; native first, text if the server rejects tools)`,
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || want[f[0]] == "" {
			continue
		}
		if !strings.HasSuffix(l, want[f[0]]) {
			t.Errorf("%s: %q, want it to end in %q", f[0], l, want[f[0]])
		}
		delete(want, f[0])
	}
	if len(want) > 0 {
		t.Errorf("models missing from the table: %v\n%s", want, r.stdout)
	}

	r = run(t, dir, nil, "models", "--json", "--timeout", "5s")
	var checks []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &checks); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := map[string][3]any{}
	for _, c := range checks {
		got[c["name"].(string)] = [3]any{c["toolMode"], c["resolvedToolMode"], c["toolModeReason"]}
	}
	wantJSON := map[string][3]any{
		"llava":  {"auto", "text", `ollama: no "tools" capability`},
		"qwen3":  {"auto", "native", `ollama: "tools" capability`},
		"cpp":    {"auto", "native", "llama.cpp: chat template renders tools, per chat_template_caps"},
		"forced": {"text", "text", "configured"},
		"vllm":   {"auto", "native", "model list: the entry does not mention tools; native first, text if the server rejects tools"},
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("JSON tool modes mismatch (-want +got):\n%s", diff)
	}
}
