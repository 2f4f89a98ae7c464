package app

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/schema"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// ProviderTools renders entries as the tool list of one provider's API,
// each input schema converted for that provider, for
// `switchboard tools --provider`. A schema that cannot be converted is an
// error naming the tool.
func (a *App) ProviderTools(provider string, entries []tools.Entry) ([]byte, error) {
	p := schema.Provider(provider)
	type fn struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type anthropicTool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	type openaiTool struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	fns := make([]fn, 0, len(entries))
	for _, e := range entries {
		s, err := schema.For(p, e.Info.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", e.Name, err)
		}
		fns = append(fns, fn{Name: e.Name, Description: e.Info.Description, Parameters: s})
	}
	var out any
	switch p {
	case schema.OpenAI, schema.Ollama:
		list := make([]openaiTool, len(fns))
		for i, f := range fns {
			list[i] = openaiTool{Type: "function", Function: f}
		}
		out = list
	case schema.Anthropic:
		list := make([]anthropicTool, len(fns))
		for i, f := range fns {
			list[i] = anthropicTool{Name: f.Name, Description: f.Description, InputSchema: f.Parameters}
		}
		out = list
	case schema.Gemini:
		out = []map[string]any{{"functionDeclarations": fns}}
	}
	return json.MarshalIndent(out, "", "  ")
}
