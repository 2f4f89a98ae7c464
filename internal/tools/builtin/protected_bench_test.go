package builtin

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/protect"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// BenchmarkGrepProtected is grep over 2,000 files with and without the
// protected set: what the per-file descriptor check costs (one readlink
// and one fstat per file, the set's snapshot once per call).
func BenchmarkGrepProtected(b *testing.B) {
	root := b.TempDir()
	for i := range 2000 {
		write(b, filepath.Join(root, fmt.Sprintf("d%d", i%50), fmt.Sprintf("f%d.txt", i)), "hello world\nfoo\n")
	}
	var items []protect.Item
	for _, n := range []string{".switchboard", "switchboard.yaml", "switchboard.yml", "switchboard.json", "x/config.yaml", "x/config.yml", "x/config.json"} {
		items = append(items, protect.Item{Path: filepath.Join(root, n), What: "x"})
	}
	write(b, filepath.Join(root, ".switchboard", "db"), "x")
	set, err := protect.New(items)
	if err != nil {
		b.Fatal(err)
	}
	defer set.Close()
	for _, c := range []struct {
		name string
		set  *protect.Set
	}{{"none", nil}, {"protected", set}} {
		b.Run(c.name, func(b *testing.B) {
			e := newEnvAt(b, root, &Options{Protected: c.set})
			tl := e.tools[nameGrep]
			for b.Loop() {
				res, _ := tl.Call(b.Context(), &tools.CallRequest{Arguments: []byte(`{"pattern":"nomatch"}`)})
				if res.IsError {
					b.Fatal(res.Text())
				}
			}
		})
	}
}
