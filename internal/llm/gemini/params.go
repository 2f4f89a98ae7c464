package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/schema"
)

// parameters converts a tool's JSON Schema to the OpenAPI subset Gemini's
// functionDeclarations accept. A tool without properties gets no
// parameters at all: Gemini refuses an OBJECT whose properties are empty.
func parameters(raw json.RawMessage) (json.RawMessage, error) {
	out, err := schema.For(schema.Gemini, raw)
	if err != nil {
		return nil, err
	}
	var top struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(out, &top); err != nil {
		return nil, fmt.Errorf("reading converted schema: %w", err)
	}
	if len(top.Properties) == 0 {
		return nil, nil
	}
	return out, nil
}
