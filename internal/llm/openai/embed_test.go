package openai_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/internal/llm/openai"
)

// checkJSON fails the test unless body is the JSON document want.
func checkJSON(t testing.TB, body []byte, want string) {
	t.Helper()
	var got, w any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("request body is not JSON: %v: %s", err, body)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, got); diff != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", diff)
	}
}

func TestEmbed(t *testing.T) {
	reply := llmtest.JSON(200, `{"object":"list","data":[
		{"object":"embedding","index":1,"embedding":[0.5,-1]},
		{"object":"embedding","index":0,"embedding":[0.25,2]}],
		"model":"text-embedding-3-small","usage":{"prompt_tokens":4,"total_tokens":4}}`)
	reply.Check = func(t testing.TB, r *http.Request, body []byte) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			t.Errorf("request line = %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk-1" {
			t.Errorf("Authorization = %q", got)
		}
		checkJSON(t, body, `{"model":"text-embedding-3-small","input":["send an e-mail","turn off a light"],"encoding_format":"float"}`)
	}
	srv := llmtest.NewServer(t, reply)
	c := openai.New(&openai.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-1", Model: "gpt-4o-mini", HTTPOptions: llm.HTTPOptions{MaxRetries: -1}})
	got, err := c.Embed(t.Context(), "text-embedding-3-small", llmtest.EmbedTexts)
	llmtest.CheckEmbedded(t, got, err)
}

func TestEmbedErrors(t *testing.T) {
	cases := []llmtest.EmbedErrorCase{
		{Name: "too few vectors", Reply: llmtest.JSON(200, `{"data":[{"index":0,"embedding":[1]}]}`), Kind: llm.KindMalformed},
		{Name: "index twice", Reply: llmtest.JSON(200, `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`), Kind: llm.KindMalformed},
		{Name: "dimensions differ", Reply: llmtest.JSON(200, `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1,2]}]}`), Kind: llm.KindMalformed},
		{Name: "not JSON", Reply: llmtest.JSON(200, `<html>`), Kind: llm.KindMalformed},
		{Name: "unknown model", Reply: llmtest.JSON(404, `{"error":{"message":"The model does not exist","type":"invalid_request_error"}}`), Kind: llm.KindNotFound},
	}
	llmtest.RunEmbedErrors(t, cases, func(t *testing.T, url string) error {
		c := openai.New(&openai.Options{BaseURL: url, HTTPOptions: llm.HTTPOptions{MaxRetries: -1}})
		_, err := c.Embed(t.Context(), "m", []string{"a", "b"})
		return err
	})
}
