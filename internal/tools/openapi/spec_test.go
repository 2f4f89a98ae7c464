package openapi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/tools/openapi/emailserver"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"empty", "  ", "not an OpenAPI 3 document: the document is empty"},
		{"swagger", `{"swagger": "2.0"}`, "it is Swagger 2.0; convert it to OpenAPI 3"},
		{"no version", `{"paths": {}}`, `no "openapi" version field`},
		{"version 4", `{"openapi": "4.0.0"}`, `version "4.0.0" is not 3.x`},
		{"array", `[1]`, "the top level is not an object"},
		{"bad json", `{"openapi": `, "decoding json"},
		{"trailing json", `{"openapi": "3.0.0"} {}`, "trailing data"},
		{"paths not object", `{"openapi": "3.0.0", "paths": []}`, `"paths" is not an object`},
		{"yaml alias", "openapi: 3.0.0\na: &x {b: 1}\nc: *x\n", "aliases (*name) are not supported"},
		{"yaml merge", "openapi: 3.0.0\na: &x {b: 1}\nc: {<<: *x}\n", "not supported"},
		{"yaml complex key", "openapi: 3.0.0\n? [a]\n: 1\n", "mapping key is not a scalar"},
		{"yaml syntax", "openapi: 3.0.0\n  bad: [", "decoding yaml"},
		{"yaml too deep", "openapi: 3.0.0\nx: " + strings.Repeat("[", 300) + strings.Repeat("]", 300), "nested deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseDocument([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseDocument error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestParseYAMLNumbers checks that YAML scalars come out as JSON would have
// them: an unquoted version number is accepted, numbers stay exact.
func TestParseYAMLNumbers(t *testing.T) {
	doc, err := parseDocument([]byte("openapi: 3.1\nx: [1, 2.50, 0x1F, 1e3, true, null, 2024-01-02]\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(doc.root["x"])
	if err != nil {
		t.Fatal(err)
	}
	if want := `[1,2.50,31,1e3,true,null,"2024-01-02"]`; string(got) != want {
		t.Errorf("x = %s, want %s", got, want)
	}
	if doc.version != "3.1" {
		t.Errorf("version = %q", doc.version)
	}
}

// FuzzParse feeds arbitrary bytes through parsing and tool generation:
// neither may panic, and every generated input schema must be JSON.
func FuzzParse(f *testing.F) {
	specs, _ := filepath.Glob(filepath.Join("testdata", "specs", "*"))
	for _, p := range specs {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(emailserver.Document())
	f.Add([]byte(tinyYAML))
	f.Add([]byte(`{"openapi":"3.0.0","paths":{"/a/{x}":{"get":{"parameters":[{"$ref":"#/paths"}]}}}}`))
	f.Add([]byte(`{"openapi":"3.1.0","components":{"schemas":{"A":{"allOf":[{"$ref":"#/components/schemas/A"},{"$ref":"#"}]}}},` +
		`"paths":{"/":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}}}`))
	f.Add([]byte(`{"openapi":"3.0.0","paths":{"/":{"$ref":"#/paths/~1"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		// A hang is a failure too; the fuzzer does not report hangs by itself,
		// but it keeps the input that crashed a worker.
		tm := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("parsing took over 10s: %q", b)) })
		defer tm.Stop()
		doc, err := parseDocument(b)
		if err != nil {
			return
		}
		ops, _ := buildOperations(doc)
		for _, op := range ops {
			if !json.Valid(op.info.InputSchema) {
				t.Fatalf("%s: input schema is not JSON: %s", op.info.Name, op.info.InputSchema)
			}
		}
	})
}

// TestSchemaBudget checks that a document whose schemas would inline to an
// enormous size is cut, quickly, with a note.
func TestSchemaBudget(t *testing.T) {
	// Each level refers to the next one 4 times: 4^12 copies of L12's large
	// enum if nothing stopped it.
	var b strings.Builder
	b.WriteString(`{"openapi": "3.1.0", "paths": {"/x": {"post": {"operationId": "x", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/L0"}}}}}}}, "components": {"schemas": {`)
	for i := range 12 {
		fmt.Fprintf(&b, `"L%d": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/L%d"}, "b": {"$ref": "#/components/schemas/L%d"}, "c": {"$ref": "#/components/schemas/L%d"}, "d": {"$ref": "#/components/schemas/L%d"}}},`, i, i+1, i+1, i+1, i+1)
	}
	b.WriteString(`"L12": {"type": "string", "enum": [` + strings.Repeat(`"v",`, 200) + `"v"]}}}}`)
	doc, err := parseDocument([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	ops, _ := buildOperations(doc)
	if len(ops) != 1 {
		t.Fatalf("%d operations", len(ops))
	}
	schema := ops[0].info.InputSchema
	if !strings.Contains(string(schema), "too large to inline") || len(schema) > 4<<20 {
		t.Errorf("schema is %d bytes, want it cut with a note", len(schema))
	}
	t.Logf("cut schema: %d bytes in %v", len(schema), time.Since(start))

	// A value larger than the whole budget, referenced many times.
	b.Reset()
	b.WriteString(`{"openapi": "3.1.0", "paths": {"/x": {"get": {"operationId": "x", "parameters": [`)
	for i := range 300 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "p%d", "in": "query", "schema": {"$ref": "#/components/schemas/Big"}}`, i)
	}
	b.WriteString(`]}}}, "components": {"schemas": {"Big": {"type": "integer", "enum": [` + strings.Repeat("1,", schemaBudget) + `1]}}}}`)
	doc, err = parseDocument([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	ops, _ = buildOperations(doc)
	if len(ops) != 1 || !strings.Contains(string(ops[0].info.InputSchema), "too large to inline") {
		t.Errorf("huge enum: want one operation with a cut note")
	}
	t.Logf("huge enum: %d bytes in %v", len(ops[0].info.InputSchema), time.Since(start))
}
