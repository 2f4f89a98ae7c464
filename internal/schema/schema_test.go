package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConvertErrors(t *testing.T) {
	tests := []struct {
		name   string
		p      Provider
		in     string
		errHas string
	}{
		{"unknown provider", "mistral", `{}`, `unknown provider "mistral"`},
		{"not json", OpenAI, `{"type":`, "reading tool schema"},
		{"array", Gemini, `[1,2]`, "got a JSON array, want a JSON Schema object"},
		{"string", Anthropic, `"object"`, "got a JSON string"},
		{"trailing data", Ollama, `{} {}`, "unexpected data after the schema"},
		{"too deep", Gemini, strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300), "nests deeper than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := For(tt.p, json.RawMessage(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("For(%s, %s) error = %v, want one containing %q", tt.p, tt.in, err, tt.errHas)
			}
		})
	}
}

func TestForKeepsOrderAndText(t *testing.T) {
	in := `{"type":"object","properties":{"z":{"type":"string","description":"<b>&\u2028"},"a":{"type":"integer"}},"required":["z"]}`
	got, err := For(OpenAI, json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"z":{"type":"string","description":"<b>&\u2028"},"a":{"type":"integer"}},"required":["z"]}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	// nil means no schema.
	got, err = For(Gemini, nil)
	if err != nil || string(got) != `{"type":"object","properties":{}}` {
		t.Errorf("For(Gemini, nil) = %s, %v", got, err)
	}
}

// TestGeminiExponentialRefs checks that references used many times cannot
// blow up the output: the expansion is cut at maxNodes.
func TestGeminiExponentialRefs(t *testing.T) {
	defs := map[string]any{}
	for i := range 30 {
		next := map[string]any{"type": "string"}
		if i < 29 {
			ref := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
			next = map[string]any{"type": "object", "properties": map[string]any{"l": ref, "r": ref}}
		}
		defs[fmt.Sprintf("d%d", i)] = next
	}
	in, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/d0"}}, "$defs": defs})
	out, changes, err := Convert(Gemini, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 4<<20 {
		t.Errorf("output is %d bytes; the expansion was not bounded", len(out))
	}
	if !strings.Contains(fmt.Sprint(changes), "too large") {
		t.Errorf("changes do not mention the cut: %v", changes[:min(len(changes), 5)])
	}
}

func FuzzFor(f *testing.F) {
	for _, seed := range []string{
		`{}`, `true`, `false`, `null`, `[]`, `"x"`, `{"type":["string","null"]}`,
		`{"$ref":"#"}`, `{"allOf":[{"$ref":"#"}]}`, `{"properties":{"a":{"$ref":"#/properties/a"}}}`,
		`{"anyOf":[{"type":"null"}],"oneOf":[1]}`, `{"enum":[1,[2],{"a":null}],"const":{}}`,
		`{"items":[true,false],"prefixItems":{},"required":[[1],{}]}`, `{"$ref":"#/%zz"}`,
		`{"allOf":[{"required":["a",["b"]]},{"required":[{"c":1}]}]}`,
		`{"allOf":[{"$ref":"#"},{"$ref":"#"}],"properties":{"a":{"allOf":[{"$ref":"#"},{"$ref":"#"}]}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/b"}},"$defs":{"b":{"$ref":"#/$defs/a"},"a":{"$ref":"#/$defs/b"}}}`,
		`{"exclusiveMinimum":true,"minimum":"x","format":3,"description":7,"examples":[]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, p := range providers {
			out, _, err := Convert(p, in)
			if err != nil {
				continue
			}
			var top map[string]any
			if err := json.Unmarshal(out, &top); err != nil {
				t.Fatalf("Convert(%s, %q) gave invalid JSON %q: %v", p, in, out, err)
			}
			if p == Gemini {
				if problems := geminiProblems(top, ""); len(problems) > 0 {
					t.Fatalf("Convert(gemini, %q) = %s, not accepted: %v", in, out, problems)
				}
			}
		}
	})
}
