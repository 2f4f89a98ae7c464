package ollama

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

var _ llm.Embedder = (*Client)(nil)

// Embed implements [llm.Embedder] with POST /api/embed, which takes every
// text in one request and answers the vectors in order.
func (c *Client) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if model == "" {
		model = c.model
	}
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{model, texts})
	if err != nil {
		return nil, llm.RequestError(c.name, err)
	}
	resp, err := c.tr.Do(ctx, http.MethodPost, c.base+"/api/embed", c.header, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, llm.StreamError(c.name, "embeddings", err)
	}
	var out struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, llm.MalformedError(c.name, "embeddings", err)
	}
	if err := llm.CheckEmbeddings(c.name, len(texts), out.Embeddings); err != nil {
		return nil, err
	}
	return out.Embeddings, nil
}
