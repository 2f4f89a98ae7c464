package rank

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/tools"
	"github.com/switchboard-mcp/switchboard/internal/tools/rank/ranktest"
)

// The development split of toolbench (testdata/toolbench/README.md): a
// catalogue of 506 tools in 25 servers and 100 hand-written requests with
// the tools that answer them. ranktest reads them.

// BenchQuery is one request and the tools that answer it.
type BenchQuery = ranktest.Query

// LoadCatalogue returns the toolbench catalogue as a real registry lists it.
func LoadCatalogue(t testing.TB) []tools.Entry {
	t.Helper()
	return ranktest.Registry(t, "testdata").List()
}

// LoadQueries returns the development requests in file order.
func LoadQueries(t testing.TB) []BenchQuery {
	t.Helper()
	return ranktest.DevQueries(t, "testdata")
}

// ProbeSets is the number of probe sets in testdata/probe.
const ProbeSets = 7

// LoadProbes returns the probe requests of testdata/probe (see its
// README): set 1 to ProbeSets.
func LoadProbes(t testing.TB, set int) []BenchQuery {
	t.Helper()
	name := "probe-queries.jsonl"
	if set > 1 {
		name = fmt.Sprintf("probe%d-queries.jsonl", set)
	}
	return ranktest.Queries(t, filepath.Join("testdata", "probe", name))
}

// FirstHit returns the 1-based rank of the first gold tool in ranked, or 0.
func FirstHit(ranked, gold []string) int {
	for i, n := range ranked {
		if slices.Contains(gold, n) {
			return i + 1
		}
	}
	return 0
}
