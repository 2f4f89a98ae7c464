package mcpserve

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestTextResultJSON: the hand-written encoding of a text result is the
// SDK's, byte for byte, and every other result is left to the SDK.
func TestTextResultJSON(t *testing.T) {
	texts := []string{
		"", "hi", "<b>&amp;</b>", "line\nbreak\ttab\r", "quote \" back \\", "nul \x00 bel \x07",
		"\xff invalid", "é日本語🙂", "\u2028\u2029",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		b := make([]byte, rng.IntN(30))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		texts = append(texts, string(b))
	}
	var results []*mcp.CallToolResult
	for i, s := range texts {
		results = append(results,
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: i%2 == 0},
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}, &mcp.TextContent{Text: "second " + s}}})
	}
	results = append(results, &mcp.CallToolResult{Content: []mcp.Content{}})
	for _, r := range results {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := textResultJSON(r)
		if !ok || string(got) != string(want) {
			t.Fatalf("for %+v\n got %s (%v)\nwant %s", r, got, ok, want)
		}
	}
	for _, r := range []*mcp.CallToolResult{
		{Content: []mcp.Content{&mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a", Annotations: &mcp.Annotations{Priority: 1}}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a", Meta: mcp.Meta{"k": "v"}}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a"}}, StructuredContent: map[string]any{"a": 1}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a"}}, Meta: mcp.Meta{"k": "v"}},
		{IsError: true}, // nil content: the SDK writes null
	} {
		if got, ok := textResultJSON(r); ok {
			t.Errorf("encoded %+v by hand as %s; it is not plain text", r, got)
		}
	}
}

// TestCatalogueTextAsSDK: the direct path's answer written from the
// catalogue's result is, byte for byte, the SDK's encoding of the same
// result converted (mcpResult) in the answer resultAnswer assembles; a
// result that is not text only is left to that path.
func TestCatalogueTextAsSDK(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	text := func() string {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return string(b)
	}
	ids := []string{`7`, `"abc"`, `"<script>&"`, `-1.5e3`}
	for i := range 2000 {
		r := &tools.Result{IsError: i%3 == 0, Content: []tools.Content{}}
		for range rng.IntN(3) {
			r.Content = append(r.Content, tools.Content{Type: tools.ContentText, Text: text()})
		}
		result, err := json.Marshal(mcpResult(r))
		if err != nil {
			t.Fatal(err)
		}
		id := ids[i%len(ids)]
		got, ok := textAnswer([]byte(id), r)
		if want := resultAnswer([]byte(id), result); !ok || string(got) != string(want) {
			t.Fatalf("for %+v\n got %s (%v)\nwant %s", r, got, ok, want)
		}
	}
	for _, r := range []*tools.Result{
		{Content: []tools.Content{{Type: tools.ContentImage, Data: []byte{1}, MIMEType: "image/png"}}},
		{Content: []tools.Content{{Type: tools.ContentText, Text: "a"}}, Structured: json.RawMessage(`{"a":1}`)},
		{IsError: true}, // nil content: left to the general path
	} {
		if got, ok := textAnswer([]byte("1"), r); ok {
			t.Errorf("wrote %+v by hand as %s; it is not text only", r, got)
		}
	}
}
