package app

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDocs checks that every package has exactly one package comment,
// so that `go doc` says what each package is for and who may import it.
// go list names the files of each package as the build sees them, honouring
// build tags.
func TestPackageDocs(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}{{range .GoFiles}} {{.}}{{end}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		dir := fields[0]
		var docs []string
		for _, name := range fields[1:] {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Errorf("parsing %s: %v", name, err)
				continue
			}
			if f.Doc != nil {
				docs = append(docs, name)
			}
		}
		switch {
		case len(docs) == 0:
			t.Errorf("package in %s has no package comment: say what it is for and who may import it", dir)
		case len(docs) > 1:
			t.Errorf("package in %s has %d package comments (%v): keep exactly one, in doc.go when long", dir, len(docs), docs)
		}
	}
}
