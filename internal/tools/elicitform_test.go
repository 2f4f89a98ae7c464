package tools_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The requested schemas of the MCP specification's examples (2025-06-18
// "Simple Text Request" and "Structured Data Request"; 2025-11-25's enum
// forms) and the form server-everything asks for.
const (
	specSimple     = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	specStructured = `{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string","format":"email"}},"required":["name","email"]}`
	specEnums      = `{"type":"object","properties":{
		"color":{"type":"string","title":"Color","enum":["red","green"],"enumNames":["Red","Green"],"default":"green"},
		"hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"},{"const":"h2","title":"Wonder Woman"}]},
		"fish":{"type":"array","minItems":1,"maxItems":2,"items":{"anyOf":[{"const":"f1","title":"Tuna"},{"const":"f2","title":"Trout"},{"const":"f3","title":"Eel"}]}},
		"tools":{"type":"array","items":{"type":"string","enum":["saw","drill"]},"default":["saw"]}}}`
	specPrimitives = `{"type":"object","properties":{
		"age":{"type":"integer","minimum":1,"maximum":100,"default":42},
		"ratio":{"type":"number","minimum":0,"maximum":1},
		"agree":{"type":"boolean","title":"Agree","description":"to the terms","default":false},
		"code":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[A-Z]+$"},
		"home":{"type":"string","format":"uri"},
		"born":{"type":"string","format":"date"},
		"at":{"type":"string","format":"date-time"}},"required":["age"]}`
)

func parse(t *testing.T, s string) *tools.ElicitForm {
	t.Helper()
	f, err := tools.ParseElicitForm(json.RawMessage(s))
	if err != nil {
		t.Fatalf("ParseElicitForm: %v", err)
	}
	return f
}

func TestElicitFormFields(t *testing.T) {
	f := parse(t, specEnums)
	var got []string
	for _, fd := range f.Fields {
		var opts []string
		for _, o := range fd.Options {
			opts = append(opts, o.Value+"="+o.Label)
		}
		got = append(got, fd.Name+":"+string(fd.Kind)+":"+strings.Join(opts, ","))
	}
	want := []string{
		"color:choice:red=Red,green=Green",
		"hero:choice:h1=Superman,h2=Wonder Woman",
		"fish:multi:f1=Tuna,f2=Trout,f3=Eel",
		"tools:multi:saw=saw,drill=drill",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields, in schema order (-want +got):\n%s", diff)
	}
	if f.Fields[0].Default != "green" {
		t.Errorf("color default = %v, want green", f.Fields[0].Default)
	}
	p := parse(t, specPrimitives)
	if p.Fields[0].Name != "age" || !p.Fields[0].Required || p.Fields[0].Default != 42.0 || p.Fields[2].Label() != "Agree" || p.Fields[1].Label() != "ratio" {
		t.Errorf("primitive fields = %+v", p.Fields)
	}
}

func TestElicitFormCheck(t *testing.T) {
	cases := []struct {
		name, schema, content, wantErr string
	}{
		{"simple ok", specSimple, `{"name":"octocat"}`, ""},
		{"simple missing required", specSimple, `{}`, "name (name) is required"},
		{"simple wrong type", specSimple, `{"name":7}`, "want text, got a number"},
		{"extra field", specSimple, `{"name":"a","admin":true}`, `"admin" is not a field of this form`},
		{"structured ok", specStructured, `{"name":"Octo","email":"octo@example.com"}`, ""},
		{"bad email", specStructured, `{"name":"Octo","email":"octo at example"}`, "not an e-mail address"},
		{"email with display name", specStructured, `{"name":"Octo","email":"Octo <octo@example.com>"}`, "not an e-mail address"},
		{"enum ok", specEnums, `{"color":"red","hero":"h2","fish":["f1","f3"],"tools":[]}`, ""},
		{"enum outside", specEnums, `{"color":"blue"}`, "blue is not one of the choices [red, green]"},
		{"enum label is not a value", specEnums, `{"hero":"Superman"}`, "Superman is not one of the choices"},
		{"multi outside", specEnums, `{"fish":["f1","shark"]}`, "shark is not one of the choices"},
		{"multi too many", specEnums, `{"fish":["f1","f2","f3"]}`, "choose at most 2"},
		{"multi too few", specEnums, `{"fish":[]}`, "choose at least 1"},
		{"multi twice", specEnums, `{"fish":["f1","f1"]}`, "chosen twice"},
		{"multi not a list", specEnums, `{"fish":"f1"}`, "want a list"},
		{"primitives ok", specPrimitives, `{"age":3,"ratio":0.5,"agree":true,"code":"AB","home":"https://x.example/","born":"2000-02-29","at":"2025-06-18T14:30:00Z"}`, ""},
		{"integer not whole", specPrimitives, `{"age":3.5}`, "want a whole number"},
		{"integer as text", specPrimitives, `{"age":"3"}`, "want a number, got text"},
		{"below minimum", specPrimitives, `{"age":0}`, "below the minimum 1"},
		{"above maximum", specPrimitives, `{"age":1,"ratio":2}`, "above the maximum 1"},
		{"boolean as text", specPrimitives, `{"age":1,"agree":"yes"}`, "want true or false"},
		{"too short", specPrimitives, `{"age":1,"code":"A"}`, "at least 2 characters"},
		{"too long", specPrimitives, `{"age":1,"code":"ABCDE"}`, "at most 4 characters"},
		{"pattern", specPrimitives, `{"age":1,"code":"ab"}`, "does not match the pattern"},
		{"relative uri", specPrimitives, `{"age":1,"home":"/x"}`, "not an absolute URI"},
		{"bad date", specPrimitives, `{"age":1,"born":"2001-02-29"}`, "not a date"},
		{"bad date-time", specPrimitives, `{"age":1,"at":"yesterday"}`, "not a date-time"},
		{"null value", specPrimitives, `{"age":null}`, "want a number, got null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var content map[string]any
			if err := json.Unmarshal([]byte(c.content), &content); err != nil {
				t.Fatal(err)
			}
			err := parse(t, c.schema).Check(content)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("Check = %v, want nil", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.Is(err, tools.ErrElicitContent)):
				t.Fatalf("Check = %v, want ErrElicitContent containing %q", err, c.wantErr)
			}
		})
	}
}

func TestParseElicitFormRefuses(t *testing.T) {
	cases := map[string]string{
		"not an object":     `{"type":"array"}`,
		"nested":            `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		"object property":   `{"type":"object","properties":{"a":{"type":"object"}}}`,
		"unknown required":  `{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`,
		"bad pattern":       `{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`,
		"bad format":        `{"type":"object","properties":{"a":{"type":"string","format":"ipv4"}}}`,
		"enumNames length":  `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"],"enumNames":["X"]}}}`,
		"array of anything": `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`,
		"not JSON":          `{"type":`,
	}
	for name, s := range cases {
		if _, err := tools.ParseElicitForm(json.RawMessage(s)); err == nil {
			t.Errorf("%s: ParseElicitForm(%s) = nil error", name, s)
		}
	}
	if f, err := tools.ParseElicitForm(nil); err != nil || len(f.Fields) != 0 {
		t.Errorf("empty schema: %v, %v", f, err)
	}
	// A default the field refuses is not offered.
	f := parse(t, `{"type":"object","properties":{"n":{"type":"integer","maximum":3,"default":9}}}`)
	if f.Fields[0].Default != nil {
		t.Errorf("default outside the field's limits kept: %v", f.Fields[0].Default)
	}
}
