package gemini

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no parameters", ``, ``},
		{"empty object", `{"type":"object","properties":{}}`, ``},
		{"plain", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string","description":"A"}},"required":["a"],"additionalProperties":false}`,
			`{"type":"object","properties":{"a":{"type":"string","description":"A"}},"required":["a"]}`},
		{"nullable type list", `{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
			`{"type":"object","properties":{"a":{"type":"string","nullable":true}}}`},
		{"several types", `{"type":"object","properties":{"a":{"type":["string","integer"]}}}`,
			`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`},
		{"const and enum", `{"type":"object","properties":{"a":{"const":"x"},"b":{"enum":[1,2]},"c":{"type":"string","enum":["p","q"]}}}`,
			`{"type":"object","properties":{"a":{"type":"string","format":"enum","enum":["x"]},"b":{},"c":{"type":"string","format":"enum","enum":["p","q"]}}}`},
		{"oneOf with null", `{"type":"object","properties":{"a":{"oneOf":[{"type":"number"},{"type":"null"}]}}}`,
			`{"type":"object","properties":{"a":{"type":"number","nullable":true}}}`},
		{"refs inlined", `{"type":"object","properties":{"p":{"$ref":"#/$defs/pt","description":"where"}},"$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
			`{"type":"object","properties":{"p":{"type":"object","description":"where","properties":{"x":{"type":"number"}}}}}`},
		{"recursive ref cut", `{"type":"object","properties":{"n":{"$ref":"#"}}}`, ""},
		{"array needs items", `{"type":"object","properties":{"a":{"type":"array"},"b":{"type":"array","items":{"type":"integer","format":"int64"}}}}`,
			`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}},"b":{"type":"array","items":{"type":"integer","format":"int64"}}}}`},
		{"unsupported format dropped", `{"type":"object","properties":{"u":{"type":"string","format":"uri"},"d":{"type":"string","format":"date-time"}}}`,
			`{"type":"object","properties":{"u":{"type":"string"},"d":{"type":"string","format":"date-time"}}}`},
		{"required names unknown property", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","zz"]}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := toSchema(json.RawMessage(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "recursive ref cut" {
				if len(got) == 0 {
					t.Fatal("recursive schema lost its properties")
				}
				return
			}
			if tc.want == "" {
				if got != nil {
					t.Errorf("toSchema(%s) = %s, want nil", tc.in, got)
				}
				return
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("toSchema(%s) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestToSchemaRejectsBadJSON(t *testing.T) {
	if _, err := toSchema(json.RawMessage(`{"type":`)); err == nil {
		t.Error("want an error for a schema that is not JSON")
	}
}
