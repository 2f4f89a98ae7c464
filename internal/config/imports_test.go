package config

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// config is a leaf: the standard library, the YAML decoder and
// internal/redact (itself standard library only: the one definition of what
// is secret, shared with every surface) only, so that app and cli can
// import it without pulling anything else in.
func TestImportsStayLeaf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			if strings.Contains(first, ".") && p != "go.yaml.in/yaml/v3" && p != "github.com/switchboard-mcp/switchboard/internal/redact" {
				t.Errorf("%s imports %s; config may import only the standard library and go.yaml.in/yaml/v3", name, p)
			}
		}
	}
}
