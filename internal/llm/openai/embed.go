package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

var _ llm.Embedder = (*Client)(nil)

// Embed implements [llm.Embedder] with POST /embeddings: one request for
// all texts, float vectors, reordered by the index each item carries.
func (c *Client) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if model == "" {
		model = c.model
	}
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}{model, texts, "float"})
	if err != nil {
		return nil, llm.RequestError(c.name, err)
	}
	resp, err := c.tr.Do(ctx, http.MethodPost, c.base+"/embeddings", c.header, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, llm.StreamError(c.name, "embeddings", err)
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, llm.MalformedError(c.name, "embeddings", err)
	}
	vecs := make([][]float32, len(out.Data))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(vecs) || vecs[d.Index] != nil {
			return nil, llm.MalformedError(c.name, "embeddings", fmt.Errorf("item index %d out of place among %d", d.Index, len(vecs)))
		}
		vecs[d.Index] = d.Embedding
	}
	if err := llm.CheckEmbeddings(c.name, len(texts), vecs); err != nil {
		return nil, err
	}
	return vecs, nil
}
