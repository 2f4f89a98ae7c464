package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/llm"
)

var _ llm.Embedder = (*Client)(nil)

// Embed implements [llm.Embedder] with POST /embeddings: one request for
// all texts, float vectors, put in order by the index each item carries.
func (c *Client) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(map[string]any{"model": cmp.Or(model, c.model), "input": texts, "encoding_format": "float"})
	if err != nil {
		return nil, llm.RequestError(c.name, err)
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := c.tr.DoJSON(ctx, http.MethodPost, c.base+"/embeddings", c.header, body, "embeddings", &out); err != nil {
		return nil, err
	}
	vecs := make([][]float32, len(out.Data))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(vecs) || vecs[d.Index] != nil {
			return nil, llm.MalformedError(c.name, "embeddings", fmt.Errorf("item index %d out of place among %d", d.Index, len(vecs)))
		}
		vecs[d.Index] = d.Embedding
	}
	return llm.CheckEmbeddings(c.name, len(texts), vecs)
}
