package openapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/openapi/emailserver"
)

var update = flag.Bool("update", false, "rewrite testdata/golden files")

// goldenTools is what a golden file records for one fixture.
type goldenTools struct {
	Tools    []tools.Info `json:"tools"`
	Warnings []string     `json:"warnings,omitempty"`
}

// goldenFixtures returns the documents with golden files: every file in
// testdata/specs, and the example e-mail server's document that other
// packages' tests rely on.
func goldenFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	specs, err := filepath.Glob(filepath.Join("testdata", "specs", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) == 0 {
		t.Fatal("no fixtures in testdata/specs")
	}
	out := map[string][]byte{"emailserver.json": emailserver.Document()}
	for _, p := range specs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

func fixtureOps(t *testing.T, name string, b []byte) ([]*operation, []string) {
	t.Helper()
	doc, err := parseDocument(b)
	if err != nil {
		t.Fatalf("parseDocument(%s): %v", name, err)
	}
	return buildOperations(doc)
}

// TestGoldenSchemas checks the tools generated from each fixture against
// testdata/golden, and that every input schema compiles as JSON Schema
// 2020-12 (the registry validates arguments against it).
func TestGoldenSchemas(t *testing.T) {
	for name, b := range goldenFixtures(t) {
		t.Run(name, func(t *testing.T) {
			ops, warnings := fixtureOps(t, name, b)
			g := goldenTools{Warnings: warnings}
			for _, op := range ops {
				g.Tools = append(g.Tools, op.info)
				compileSchema(t, op.info.Name, op.info.InputSchema)
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(name, filepath.Ext(name))+".json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("tools of %s mismatch (-want +got):\n%s", name, diff)
			}
		})
	}
}

func compileSchema(t *testing.T, name string, schema []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("%s: schema is not JSON: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool.json", v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if _, err := c.Compile("tool.json"); err != nil {
		t.Errorf("%s: input schema does not compile: %v", name, err)
	}
}
