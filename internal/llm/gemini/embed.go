package gemini

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

var _ llm.Embedder = (*Client)(nil)

// Embed implements [llm.Embedder] with batchEmbedContents: one request
// holding one embedContent request per text, answered in order.
func (c *Client) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	u, err := c.modelURL(model, "batchEmbedContents")
	if err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return nil, nil
	}
	name := "models/" + strings.TrimPrefix(cmp.Or(model, c.model), "models/")
	reqs := make([]map[string]any, len(texts))
	for i, t := range texts {
		reqs[i] = map[string]any{"model": name, "content": map[string]any{"parts": []map[string]string{{"text": t}}}}
	}
	body, err := json.Marshal(map[string]any{"requests": reqs})
	if err != nil {
		return nil, llm.RequestError(c.name, err)
	}
	var out struct {
		Embeddings []struct {
			Values []float32 `json:"values"`
		} `json:"embeddings"`
	}
	if err := c.tr.DoJSON(ctx, http.MethodPost, u, c.header, body, "embeddings", &out); err != nil {
		return nil, err
	}
	vecs := make([][]float32, len(out.Embeddings))
	for i, e := range out.Embeddings {
		vecs[i] = e.Values
	}
	return llm.CheckEmbeddings(c.name, len(texts), vecs)
}
