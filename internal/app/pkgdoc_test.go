package app

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDocs checks that every package has exactly one package comment,
// so that `go doc` says what each package is for and who may import it.
func TestPackageDocs(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for dir := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Errorf("parsing %s: %v", dir, err)
			continue
		}
		for name, pkg := range pkgs {
			var docs []string
			for path, f := range pkg.Files {
				if f.Doc != nil {
					docs = append(docs, filepath.Base(path))
				}
			}
			switch {
			case len(docs) == 0:
				t.Errorf("package %s (%s) has no package comment: say what it is for and who may import it", name, dir)
			case len(docs) > 1:
				t.Errorf("package %s (%s) has %d package comments (%v): keep exactly one, in doc.go when long", name, dir, len(docs), docs)
			}
		}
	}
}
