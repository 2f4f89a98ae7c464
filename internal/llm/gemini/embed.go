package gemini

import (
	"context"
	"encoding/json"
	"io"
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
	if model == "" {
		model = c.model
	}
	type part struct {
		Text string `json:"text"`
	}
	type content struct {
		Parts []part `json:"parts"`
	}
	type request struct {
		Model   string  `json:"model"`
		Content content `json:"content"`
	}
	reqs := make([]request, len(texts))
	for i, t := range texts {
		reqs[i] = request{Model: "models/" + strings.TrimPrefix(model, "models/"), Content: content{Parts: []part{{Text: t}}}}
	}
	body, err := json.Marshal(struct {
		Requests []request `json:"requests"`
	}{reqs})
	if err != nil {
		return nil, llm.RequestError(c.name, err)
	}
	resp, err := c.tr.Do(ctx, http.MethodPost, u, c.header, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, llm.StreamError(c.name, "embeddings", err)
	}
	var out struct {
		Embeddings []struct {
			Values []float32 `json:"values"`
		} `json:"embeddings"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, llm.MalformedError(c.name, "embeddings", err)
	}
	vecs := make([][]float32, len(out.Embeddings))
	for i, e := range out.Embeddings {
		vecs[i] = e.Values
	}
	if err := llm.CheckEmbeddings(c.name, len(texts), vecs); err != nil {
		return nil, err
	}
	return vecs, nil
}
