package gemini_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/gemini"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
)

func TestEmbed(t *testing.T) {
	reply := llmtest.JSON(200, `{"embeddings":[{"values":[0.25,2]},{"values":[0.5,-1]}]}`)
	reply.Check = func(t testing.TB, r *http.Request, body []byte) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1beta/models/gemini-embedding-001:batchEmbedContents" {
			t.Errorf("request line = %s %s", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("X-Goog-Api-Key"); got != "k-123" {
			t.Errorf("X-Goog-Api-Key = %q", got)
		}
		var got map[string]any
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		req := func(text string) map[string]any {
			return map[string]any{"model": "models/gemini-embedding-001", "content": map[string]any{"parts": []any{map[string]any{"text": text}}}}
		}
		want := map[string]any{"requests": []any{req("send an e-mail"), req("turn off a light")}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request body mismatch (-want +got):\n%s", diff)
		}
	}
	c := newClient(t, llmtest.NewServer(t, reply))
	got, err := c.Embed(t.Context(), "models/gemini-embedding-001", llmtest.EmbedTexts)
	llmtest.CheckEmbedded(t, got, err)
}

func TestEmbedErrors(t *testing.T) {
	cases := []llmtest.EmbedErrorCase{
		{Name: "too few vectors", Reply: llmtest.JSON(200, `{"embeddings":[{"values":[1]}]}`), Kind: llm.KindMalformed},
		{Name: "no values", Reply: llmtest.JSON(200, `{"embeddings":[{},{}]}`), Kind: llm.KindMalformed},
		{Name: "unknown model", Reply: llmtest.JSON(404, `{"error":{"code":404,"message":"models/x is not found","status":"NOT_FOUND"}}`), Kind: llm.KindNotFound},
	}
	llmtest.RunEmbedErrors(t, cases, func(t *testing.T, url string) error {
		c := gemini.New(&gemini.Options{BaseURL: url, APIKey: "k-123", HTTPOptions: llm.HTTPOptions{MaxRetries: -1}})
		_, err := c.Embed(t.Context(), "gemini-embedding-001", []string{"a", "b"})
		return err
	})
}
