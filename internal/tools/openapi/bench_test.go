package openapi

import (
	"os"
	"path/filepath"
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
