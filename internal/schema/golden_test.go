package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

var providers = []Provider{OpenAI, Anthropic, Gemini, Ollama}

// The npm corpus (testdata/npm-*.json) is the tools/list result of the
// reference servers @modelcontextprotocol/server-everything,
// server-filesystem and server-memory, version 2026.8.31, captured once over
// stdio (initialize, notifications/initialized, tools/list with every page)
// from an npm install in a temporary directory outside the repository. To
// refresh it, capture the same way and run go test ./internal/schema -update.

// goldenCase is one input: a single schema (testdata/cases) or the
// tools/list result of a reference server (testdata/npm-*.json).
type goldenCase struct {
	name    string
	schemas []namedSchema
	single  bool
}

type namedSchema struct {
	name   string
	schema json.RawMessage
}

func loadCases(t testing.TB) []goldenCase {
	t.Helper()
	var cases []goldenCase
	files, _ := filepath.Glob("testdata/cases/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		cases = append(cases, goldenCase{name: name, single: true, schemas: []namedSchema{{name, b}}})
	}
	npm, _ := filepath.Glob("testdata/npm-*.json")
	for _, f := range npm {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		c := goldenCase{name: strings.TrimSuffix(filepath.Base(f), ".json")}
		for _, tool := range list.Tools {
			c.schemas = append(c.schemas, namedSchema{tool.Name, tool.InputSchema})
		}
		cases = append(cases, c)
	}
	if len(cases) < 20 {
		t.Fatalf("found %d test cases, want the whole corpus", len(cases))
	}
	return cases
}

// render converts every schema of c for p into one indented JSON document:
// {"schema": ..., "changes": [...]} per schema, keyed by tool name for
// the npm corpus.
func render(t *testing.T, p Provider, c goldenCase) []byte {
	t.Helper()
	doc := newObject()
	for _, s := range c.schemas {
		out, changes, err := Convert(p, s.schema)
		if err != nil {
			t.Fatalf("Convert(%s, %s): %v", p, s.name, err)
		}
		checkOutput(t, p, s.name, out)
		v, err := decode(out)
		if err != nil {
			t.Fatalf("Convert(%s, %s) gave invalid JSON: %v\n%s", p, s.name, err, out)
		}
		entry := newObject()
		entry.set("schema", v)
		lines := make([]any, len(changes))
		for i, ch := range changes {
			lines[i] = ch.String()
		}
		entry.set("changes", lines)
		if c.single {
			doc = entry
			break
		}
		doc.set(s.name, entry)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, encode(nil, doc), "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	for _, p := range providers {
		for _, c := range loadCases(t) {
			t.Run(string(p)+"/"+c.name, func(t *testing.T) {
				got := render(t, p, c)
				path := filepath.Join("testdata", "golden", string(p), c.name+".json")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("reading golden file (run go test ./internal/schema -update to create it): %v", err)
				}
				if diff := cmp.Diff(string(want), string(got)); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
				}
			})
		}
	}
}

// checkOutput checks what every provider requires of a converted schema,
// and for Gemini that only allowed keywords appear.
func checkOutput(t *testing.T, p Provider, name string, out json.RawMessage) {
	t.Helper()
	var top map[string]any
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatalf("%s/%s: output is not a JSON object: %v\n%s", p, name, err, out)
	}
	if top["type"] != "object" {
		t.Errorf("%s/%s: top-level type = %v, want object", p, name, top["type"])
	}
	if _, ok := top["properties"].(map[string]any); !ok {
		t.Errorf("%s/%s: top level has no properties object", p, name)
	}
	for _, kw := range []string{"$schema", "anyOf", "oneOf", "allOf"} {
		if _, ok := top[kw]; ok {
			t.Errorf("%s/%s: top level still has %q", p, name, kw)
		}
	}
	if p == Gemini {
		for _, problem := range geminiProblems(top, "") {
			t.Errorf("%s/%s: %s", p, name, problem)
		}
	}
}
