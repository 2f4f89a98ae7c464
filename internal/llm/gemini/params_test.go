package gemini

import (
	"encoding/json"
	"testing"
)

func TestParameters(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no schema", ``, ``},
		{"empty object", `{"type":"object","properties":{}}`, ``},
		{"object without properties", `{"type":"object","additionalProperties":true}`, ``},
		{
			"converted", `{"$schema":"x","type":"object","properties":{"a":{"type":["string","null"]}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"string","nullable":true}},"required":["a"]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parameters(json.RawMessage(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("parameters(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
	if _, err := parameters(json.RawMessage(`{"type":`)); err == nil {
		t.Error("want an error for a schema that is not JSON")
	}
}
