package mcpserve

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestTextResultAsSDK: the hand-written encoding of a text result is the
// SDK's encoding of the converted result (mcpResult), byte for byte, and
// so is the one-buffer answer around it (answerHead) against wrapResult;
// every other result is left to the SDK.
func TestTextResultAsSDK(t *testing.T) {
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
	text := func(s string) tools.Content { return tools.Content{Type: tools.ContentText, Text: s} }
	var results []*tools.Result
	for i, s := range texts {
		results = append(results,
			&tools.Result{Content: []tools.Content{text(s)}, IsError: i%2 == 0},
			&tools.Result{Content: []tools.Content{text(s), text("second " + s)}})
	}
	results = append(results, &tools.Result{Content: []tools.Content{}})
	ids := []string{`7`, `"abc"`, `"<script>&"`, `-1.5e3`}
	for i, r := range results {
		want, err := json.Marshal(mcpResult(r))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendTextResult(nil, r)
		if !ok || string(got) != string(want) {
			t.Fatalf("for %+v\n got %s (%v)\nwant %s", r, got, ok, want)
		}
		id := []byte(ids[i%len(ids)])
		answer, ok := appendTextResult(answerHead(id, textResultSize(r)), r)
		if wantAnswer := wrapResult(id, want); !ok || string(append(answer, '}')) != string(wantAnswer) {
			t.Fatalf("answer for %+v\n got %s}\nwant %s", r, answer, wantAnswer)
		}
	}
	for _, r := range []*tools.Result{
		{Content: []tools.Content{{Type: tools.ContentImage, Data: []byte{1}, MIMEType: "image/png"}}},
		{Content: []tools.Content{text("a")}, Structured: json.RawMessage(`{"a":1}`)},
		{IsError: true}, // nil content: left to the general path
	} {
		if got, ok := appendTextResult(nil, r); ok {
			t.Errorf("encoded %+v by hand as %s; it is not text only", r, got)
		}
	}
}
