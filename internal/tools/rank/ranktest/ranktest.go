// Package ranktest loads the tool retriever's evaluation data, kept in
// package rank's testdata (toolbench/README.md there): a catalogue of
// tools in servers, and requests with the tools that answer them. The
// tests of rank and of the agent read it through here. Only tests may
// import it.
package ranktest

import (
	"bufio"
	"context"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Query is one request and the tools that answer it.
type Query struct {
	ID    string `json:"id"`
	Query string `json:"query"`
	Gold  []struct {
		Server string `json:"server"`
		Tool   string `json:"tool"`
	} `json:"gold"`
}

// GoldNames returns the catalogue names of the tools that answer q.
func (q Query) GoldNames() []string {
	var out []string
	for _, g := range q.Gold {
		out = append(out, g.Server+"__"+g.Tool)
	}
	return out
}

// HeldOut reports whether a development request is in the held-out part:
// a fixed fifth of the requests, chosen by a hash of the id, whose
// failures were never looked at while the lexicon and weights were made.
func HeldOut(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%5 == 0
}

// describedTool is a catalogue tool: it describes itself, and a call
// answers "ok" (an agent evaluation scores which tool is picked, not what
// it returns).
type describedTool struct{ info tools.Info }

func (d describedTool) Info() tools.Info { return d.info }

func (d describedTool) Call(context.Context, *tools.CallRequest) (*tools.Result, error) {
	return tools.TextResult("ok"), nil
}

// Registry returns a registry holding the toolbench catalogue of testdata
// (package rank's testdata directory), one MCP source per server.
func Registry(t testing.TB, testdata string) *tools.Registry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testdata, "toolbench", "catalogue.json"))
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
			ts[i] = describedTool{info: info}
		}
		reg.Set(tools.Source{Kind: tools.KindMCP, Server: server}, ts)
	}
	return reg
}

// DevQueries returns the development requests of testdata in file order.
func DevQueries(t testing.TB, testdata string) []Query {
	t.Helper()
	return Queries(t, filepath.Join(testdata, "toolbench", "dev-queries.jsonl"))
}

// Queries returns the requests of a JSON Lines file in file order.
func Queries(t testing.TB, path string) []Query {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Query
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q Query
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
