package ollama

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

var _ llm.Embedder = (*Client)(nil)

// Embed implements [llm.Embedder] with POST /api/embed, which takes every
// text in one request and answers the vectors in order.
func (c *Client) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(map[string]any{"model": cmp.Or(model, c.model), "input": texts})
	if err != nil {
		return nil, llm.RequestError(c.name, err)
	}
	var out struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := c.tr.DoJSON(ctx, http.MethodPost, c.base+"/api/embed", c.header, body, "embeddings", &out); err != nil {
		return nil, err
	}
	return llm.CheckEmbeddings(c.name, len(texts), out.Embeddings)
}
