package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoStoreTypeAssertions: what a store dialect offers beyond the Store
// contract reaches its users as a value the opener returns (replicas),
// never by asserting the dialect's type; only the store packages name
// their own types so.
func TestNoStoreTypeAssertions(t *testing.T) {
	assertion := regexp.MustCompile(`\.\(\*(postgres|sqlite)\.`)
	root := filepath.Join("..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && filepath.ToSlash(path) == "../store" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if loc := assertion.FindIndex(b); loc != nil {
			line := 1 + strings.Count(string(b[:loc[0]]), "\n")
			t.Errorf("%s:%d asserts a store dialect's type; take the capability from the store opener (app.replicas)", path, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
