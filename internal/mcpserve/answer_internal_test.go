package mcpserve

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResultAnswerAsEncoded checks that the direct path's hand-assembled
// answer is byte for byte what encoding/json made of the same envelope
// before, for IDs and results with characters encoding/json escapes.
func TestResultAnswerAsEncoded(t *testing.T) {
	results := []*mcp.CallToolResult{
		{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "<b>&amp;</b> \u2028 \"quoted\" \\ é"}}, IsError: true},
		{Content: []mcp.Content{}, StructuredContent: json.RawMessage(`{"a":[1,2,{"b":"<>"}]}`)},
	}
	ids := []string{`7`, `-1.5e3`, `"abc"`, `"<script>&"`, `"\u003c\n"`, `0`}
	for _, res := range results {
		result, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			want, err := json.Marshal(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result,omitempty"`
			}{"2.0", json.RawMessage(id), result})
			if err != nil {
				t.Fatal(err)
			}
			got := wrapResult([]byte(id), result)
			if !bytes.Equal(got, want) {
				t.Errorf("id %s:\n got %s\nwant %s", id, got, want)
			}
			if !json.Valid(got) {
				t.Errorf("id %s: answer is not JSON: %s", id, got)
			}
		}
	}
}
