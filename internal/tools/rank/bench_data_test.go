package rank

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// The development split of toolbench (testdata/toolbench/README.md): a
// catalogue of 506 tools in 25 servers and 100 hand-written requests with
// the tools that answer them.

type BenchQuery struct {
	ID    string `json:"id"`
	Query string `json:"query"`
	Gold  []struct {
		Server string `json:"server"`
		Tool   string `json:"tool"`
	} `json:"gold"`
}

// GoldNames returns the catalogue names of the tools that answer q.
func (q BenchQuery) GoldNames() []string {
	var out []string
	for _, g := range q.Gold {
		out = append(out, g.Server+"__"+g.Tool)
	}
	return out
}

// staticTool is a catalogue tool that only describes itself.
type staticTool struct{ info tools.Info }

func (s staticTool) Info() tools.Info { return s.info }

func (s staticTool) Call(context.Context, *tools.CallRequest) (*tools.Result, error) {
	return tools.ErrorResult("toolbench tools only describe themselves"), nil
}

// LoadCatalogue returns the toolbench catalogue as a real registry lists it.
func LoadCatalogue(t testing.TB) []tools.Entry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "toolbench", "catalogue.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Servers map[string][]tools.Info `json:"servers"`
	}
	if err := json.Unmarshal(raw, &cat); err != nil {
		t.Fatalf("decoding catalogue: %v", err)
	}
	reg := tools.NewRegistry(nil)
	for server, infos := range cat.Servers {
		ts := make([]tools.Tool, len(infos))
		for i, info := range infos {
			ts[i] = staticTool{info: info}
		}
		reg.Set(tools.Source{Kind: tools.KindMCP, Server: server}, ts)
	}
	return reg.List()
}

// LoadQueries returns the development requests in file order.
func LoadQueries(t testing.TB) []BenchQuery {
	t.Helper()
	return loadQueriesFrom(t, filepath.Join("testdata", "toolbench", "dev-queries.jsonl"))
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
	return loadQueriesFrom(t, filepath.Join("testdata", "probe", name))
}

func loadQueriesFrom(t testing.TB, path string) []BenchQuery {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []BenchQuery
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q BenchQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("decoding query %q: %v", sc.Text(), err)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
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
