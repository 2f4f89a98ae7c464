package ollama_test

import (
	"encoding/json"
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
	got, err := c.Embed(t.Context(), "nomic-embed-text", llmtest.EmbedTexts)
	llmtest.CheckEmbedded(t, got, err)
}

func TestEmbedErrors(t *testing.T) {
	cases := []llmtest.EmbedErrorCase{
		{Name: "too few vectors", Reply: llmtest.JSON(200, `{"embeddings":[[1]]}`), Kind: llm.KindMalformed},
		{Name: "empty vector", Reply: llmtest.JSON(200, `{"embeddings":[[],[]]}`), Kind: llm.KindMalformed},
		{Name: "the old endpoint's shape", Reply: llmtest.JSON(200, `{"embedding":[1,2]}`), Kind: llm.KindMalformed},
		{Name: "model not pulled", Reply: llmtest.JSON(404, `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`), Kind: llm.KindNotFound},
	}
	llmtest.RunEmbedErrors(t, cases, func(t *testing.T, url string) error {
		c, err := ollama.New(&ollama.Options{Host: url, Model: "llama3.2", HTTPOptions: llm.HTTPOptions{MaxRetries: -1}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Embed(t.Context(), "nomic-embed-text", []string{"a", "b"})
		return err
	})
}
