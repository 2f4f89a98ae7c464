package rank_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/llm"
	"github.com/switchboard-mcp/switchboard/internal/llm/textcall"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank"
)

func TestEvalBaseline(t *testing.T) {
	entries := rank.LoadCatalogue(t)
	qs := rank.LoadQueries(t)
	specs := make([]llm.ToolSpec, len(entries))
	for i, e := range entries {
		specs[i] = llm.ToolSpec{Name: e.Name, Description: e.Info.Description, Parameters: e.Info.InputSchema}
	}
	cat := textcall.NewCatalog(specs)
	hit, offered := 0, 0
	for _, q := range qs {
		m := cat.Manifest(textcall.ManifestOptions{Budget: 8192 / 4, Latest: q.Query})
		offered += len(m.Shown)
		if rank.FirstHit(m.Shown, q.GoldNames()) > 0 {
			hit++
		}
	}
	n := float64(len(qs))
	t.Logf("recall@offered %.2f mean offered %.1f", float64(hit)/n, float64(offered)/n)
}
