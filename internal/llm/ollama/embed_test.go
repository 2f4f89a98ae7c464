package ollama_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/ollama"
)

func TestEmbed(t *testing.T) {
	reply := llmtest.JSON(200, `{"model":"nomic-embed-text","embeddings":[[0.25,2],[0.5,-1]],"total_duration":14143917,"load_duration":1019500,"prompt_eval_count":8}`)
	reply.Check = func(t testing.TB, r *http.Request, body []byte) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/embed" {
			t.Errorf("request line = %s %s, want POST /api/embed", r.Method, r.URL.Path)
		}
		var got map[string]any
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"model": "nomic-embed-text", "input": []any{"send an e-mail", "turn off a light"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request body mismatch (-want +got):\n%s", diff)
		}
	}
	srv := llmtest.NewServer(t, reply)
	c := newClient(t, srv, ollama.Options{})
	got, err := c.Embed(t.Context(), "nomic-embed-text", []string{"send an e-mail", "turn off a light"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float32{{0.25, 2}, {0.5, -1}}, got); diff != "" {
		t.Errorf("vectors mismatch (-want +got):\n%s", diff)
	}
}

func TestEmbedErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		kind  llm.ErrorKind
	}{
		{"too few vectors", llmtest.JSON(200, `{"embeddings":[[1]]}`), llm.KindMalformed},
		{"empty vector", llmtest.JSON(200, `{"embeddings":[[],[]]}`), llm.KindMalformed},
		{"the old endpoint's shape", llmtest.JSON(200, `{"embedding":[1,2]}`), llm.KindMalformed},
		{"model not pulled", llmtest.JSON(404, `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`), llm.KindNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, llmtest.NewServer(t, tc.reply), ollama.Options{})
			_, err := c.Embed(t.Context(), "nomic-embed-text", []string{"a", "b"})
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != tc.kind {
				t.Errorf("Embed error = %v, want an *llm.Error of kind %s", err, tc.kind)
			}
		})
	}
}
