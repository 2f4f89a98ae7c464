package tools

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimpleSchemaAgreesWithJSONSchema: whatever the fast check calls
// valid, jsonschema calls valid, over random schemas of the simple kind
// (every type, required and forbidden properties, annotations, each
// draft) and random arguments (values of every type, integers written as
// 1.0 and 1e2, missing and extra properties). It also checks that the fast
// check decides most valid arguments, so that it is not vacuous.
func TestSimpleSchemaAgreesWithJSONSchema(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	types := []string{"string", "number", "integer", "boolean", "null", "object", "array"}
	values := map[string][]string{
		"string":  {`""`, `"x"`, `"1"`, `"é\n"`},
		"number":  {`0`, `-1.5`, `2e3`, `1.0`},
		"integer": {`0`, `-7`, `12345678901234567890`, `1.0`, `1e2`, `-0`},
		"boolean": {`true`, `false`},
		"null":    {`null`},
		"object":  {`{}`, `{"a":1}`},
		"array":   {`[]`, `[1,"a"]`},
	}
	drafts := []string{
		"", "http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema",
	}
	names := []string{"a", "b", "path", "message", "n"}
	decided, validCount := 0, 0
	for range 3000 {
		props := map[string]string{}
		var schema strings.Builder
		schema.WriteString(`{"type":"object"`)
		if d := drafts[rng.IntN(len(drafts))]; d != "" {
			fmt.Fprintf(&schema, `,"$schema":%q`, d)
		}
		schema.WriteString(`,"properties":{`)
		for i, n := range names[:1+rng.IntN(len(names))] {
			props[n] = types[rng.IntN(len(types))]
			if i > 0 {
				schema.WriteByte(',')
			}
			fmt.Fprintf(&schema, `%q:{"type":%q`, n, props[n])
			if rng.IntN(2) == 0 {
				schema.WriteString(`,"description":"what it is","default":null`)
			}
			schema.WriteByte('}')
		}
		schema.WriteByte('}')
		var required []string
		for n := range props {
			if rng.IntN(2) == 0 {
				required = append(required, n)
			}
		}
		if len(required) > 0 {
			r, _ := json.Marshal(required)
			fmt.Fprintf(&schema, `,"required":%s`, r)
		}
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&schema, `,"additionalProperties":%v`, rng.IntN(2) == 0)
		}
		schema.WriteString(`,"title":"t"}`)
		simple := compileSimple([]byte(schema.String()))
		if simple == nil {
			t.Fatalf("the simple schema %s has no fast check", schema.String())
		}
		sch, err := compileSchema([]byte(schema.String()))
		if err != nil {
			t.Fatal(err)
		}
		for range 10 {
			var args strings.Builder
			args.WriteByte('{')
			n := 0
			for _, name := range append(names, "extra") {
				if rng.IntN(3) == 0 {
					continue
				}
				typ := props[name]
				if typ == "" || rng.IntN(4) == 0 {
					typ = types[rng.IntN(len(types))]
				}
				vs := values[typ]
				if n > 0 {
					args.WriteByte(',')
				}
				fmt.Fprintf(&args, `%q:%s`, name, vs[rng.IntN(len(vs))])
				n++
			}
			args.WriteByte('}')
			inst, err := parseArgs([]byte(args.String()))
			if err != nil {
				t.Fatal(err)
			}
			full := sch.Validate(inst) == nil
			fast := simple.valid(inst)
			if fast && !full {
				t.Fatalf("schema %s\nargs %s: the fast check says valid, jsonschema says %v", schema.String(), args.String(), sch.Validate(inst))
			}
			if full {
				validCount++
				if fast {
					decided++
				}
			}
		}
	}
	if validCount == 0 || decided*10 < validCount*8 {
		t.Errorf("the fast check decided %d of %d valid arguments; want most", decided, validCount)
	}
}

// TestSimpleSchemaRefusesOthers: a schema that asserts anything besides
// typed properties has no fast check; the tools' real schemas do.
func TestSimpleSchemaRefusesOthers(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","minLength":1}}}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
		`{"type":"object","properties":{"a":{"enum":["x"]}}}`,
		`{"type":"object","properties":{"a":{"type":"string","format":"uri"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		`{"type":"object","additionalProperties":{"type":"string"}}`,
		`{"type":"object","patternProperties":{"^a":{"type":"string"}}}`,
		`{"type":"array"}`,
		`{"type":"object","properties":{"a":true}}`,
		`{"type":"object","properties":{"a":{"type":"strin"}}}`,
		`{"anyOf":[{"type":"object"}]}`,
	} {
		if compileSimple([]byte(s)) != nil {
			t.Errorf("%s has a fast check; it asserts more than typed properties", s)
		}
	}
	// server-everything's tools/list (version in testdata/npm): the
	// simple ones have a fast check, those with enum or minimum do not.
	for s, want := range map[string]bool{
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]}`:                                                                                                                                                                       true,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"number","description":"First number"},"b":{"type":"number","description":"Second number"}},"required":["a","b"]}`:                                                                                                                              true,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{}}`:                                                                                                                                                                                                                                                         true,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"topic":{"type":"string","description":"The research topic to investigate"},"ambiguous":{"default":false,"description":"Simulate an ambiguous query that requires clarification (triggers input_required status)","type":"boolean"}},"required":["topic"]}`: true,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"count":{"default":3,"description":"Number of resource links to return (1-10)","type":"number","minimum":1,"maximum":10}}}`:                                                                                                                                 false,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"location":{"type":"string","enum":["New York","Chicago","Los Angeles"],"description":"Choose city"}},"required":["location"]}`:                                                                                                                             false,
	} {
		if got := compileSimple([]byte(s)) != nil; got != want {
			t.Errorf("%s: fast check %v, want %v", s, got, want)
		}
	}
}

// TestSimpleSchemaOnToolbench runs the fast check against jsonschema on
// the 506 tools of the toolbench catalogue (package rank's test data):
// random arguments for each tool whose schema is simple.
func TestSimpleSchemaOnToolbench(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("rank", "testdata", "toolbench", "catalogue.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Servers map[string][]struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(raw, &cat); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	values := []string{`""`, `"x"`, `0`, `-3`, `2.5`, `1.0`, `true`, `null`, `{}`, `[]`, `["a"]`}
	all, simple := 0, 0
	for _, ts := range cat.Servers {
		for _, tool := range ts {
			all++
			fast := compileSimple(tool.InputSchema)
			if fast == nil {
				continue
			}
			simple++
			sch, err := compileSchema(tool.InputSchema)
			if err != nil {
				t.Fatalf("%s: %v", tool.Name, err)
			}
			var props struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			_ = json.Unmarshal(tool.InputSchema, &props)
			for range 30 {
				var args []string
				for name := range props.Properties {
					if rng.IntN(4) > 0 {
						args = append(args, fmt.Sprintf("%q:%s", name, values[rng.IntN(len(values))]))
					}
				}
				if rng.IntN(5) == 0 {
					args = append(args, `"unlisted":1`)
				}
				doc := "{" + strings.Join(args, ",") + "}"
				inst, err := parseArgs([]byte(doc))
				if err != nil {
					t.Fatal(err)
				}
				if fast.valid(inst) && sch.Validate(inst) != nil {
					t.Fatalf("%s %s: the fast check says valid, jsonschema says %v", tool.Name, doc, sch.Validate(inst))
				}
			}
		}
	}
	t.Logf("%d of %d toolbench schemas have a fast check", simple, all)
	if all != 506 || simple < all/2 {
		t.Errorf("%d of %d toolbench schemas have a fast check; want most of 506", simple, all)
	}
}
