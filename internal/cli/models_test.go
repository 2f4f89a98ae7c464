package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
