package openapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/tools/openapi/emailserver"
)

// BenchmarkBuildTools measures parsing a document and generating its tools.
func BenchmarkBuildTools(b *testing.B) {
	for _, name := range []string{"petstore30.json", "tree31.yaml"} {
		spec, err := os.ReadFile(filepath.Join("testdata", "specs", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				doc, err := parseDocument(spec)
				if err != nil {
					b.Fatal(err)
				}
				buildOperations(doc)
			}
		})
	}
}

// BenchmarkCall measures one read-emails call against the example server
// over loopback HTTP: Switchboard's share of a tool call.
func BenchmarkCall(b *testing.B) {
	ts := startServer(b, emailserver.New())
	s := New("email", &Options{URL: ts.URL})
	if err := s.Load(b.Context()); err != nil {
		b.Fatal(err)
	}
	read := findTool(b, s, "read-emails")
	for b.Loop() {
		res := callToolCtx(b, b.Context(), read, `{"limit": 2}`)
		if res.IsError {
			b.Fatal(res.Text())
		}
	}
}

// bigSpec is a document of n operations over shared, nested, recursive
// components: the shape of a large real API.
func bigSpec(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.1.0", "info": {"title": "big", "version": "1"}, "paths": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/things%d/{id}": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
		 "get": {"operationId": "getThing%d", "parameters": [{"name": "expand", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}}]},
		 "put": {"operationId": "putThing%d", "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}}`, i, i, i)
	}
	b.WriteString(`}, "components": {"schemas": {
	 "Thing": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"type": "object", "properties": {"owner": {"$ref": "#/components/schemas/User"}, "parts": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}}}]},
	 "Base": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "created": {"type": "string", "format": "date-time", "readOnly": true}}},
	 "User": {"type": "object", "properties": {"login": {"type": "string"}, "org": {"$ref": "#/components/schemas/Org"}}},
	 "Org": {"type": "object", "properties": {"name": {"type": "string"}, "members": {"type": "array", "items": {"$ref": "#/components/schemas/User"}}}}
	}}}`)
	return []byte(b.String())
}

// BenchmarkBuildToolsBig measures a 500-operation document (1000 tools).
func BenchmarkBuildToolsBig(b *testing.B) {
	spec := bigSpec(500)
	b.SetBytes(int64(len(spec)))
	for b.Loop() {
		doc, err := parseDocument(spec)
		if err != nil {
			b.Fatal(err)
		}
		if ops, _ := buildOperations(doc); len(ops) != 1000 {
			b.Fatalf("%d operations", len(ops))
		}
	}
}
