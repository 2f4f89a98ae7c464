package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// TestToolsRank shows the manifest of a request over a real stdio MCP
// server and the built-in tools, with a budget that cuts the catalogue.
func TestToolsRank(t *testing.T) {
	dir := project(t, "toolSearch: {maxTools: 8}\n", mcptest.StdioServer(t, "test"))
	r := run(t, dir, nil, "tools", "--rank", "add two numbers together")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"more than the budget of 8", "find_tools", "OFFERED"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !regexp.MustCompile(`(?m)^1\s+yes\s+\S+\s+test__add\s`).MatchString(r.stdout) {
		t.Errorf("test__add is not first and offered:\n%s", r.stdout)
	}

	r = run(t, dir, nil, "tools", "--rank", "add two numbers together", "--json")
	var p struct {
		Budget   int
		Deferred bool
		Offered  []string
		Ranked   []struct {
			Name    string
			Offered bool
			Matches []struct{ Term, Field string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	if !p.Deferred || p.Budget != 8 || len(p.Offered) != 8 || p.Offered[len(p.Offered)-1] != "find_tools" {
		t.Errorf("preview = %+v", p)
	}
	if len(p.Ranked) == 0 || p.Ranked[0].Name != "test__add" || len(p.Ranked[0].Matches) == 0 {
		t.Errorf("first ranked = %+v", p.Ranked[:1])
	}

	r = run(t, dir, nil, "tools", "--rank", " ")
	if r.code != 2 || !strings.Contains(r.stderr, "--rank needs a request") {
		t.Errorf("empty request: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestToolsRankAgent ranks for a named agent: only its servers' tools.
func TestToolsRankAgent(t *testing.T) {
	dir := project(t, "toolSearch: {maxTools: 4}\nagents:\n  bob: {servers: [test]}\n", mcptest.StdioServer(t, "test"))
	r := run(t, dir, nil, "tools", "--rank", "add two numbers", "--agent", "bob", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var p struct {
		Offered []string
		Ranked  []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("%v:\n%s", err, r.stdout)
	}
	for _, tl := range p.Ranked {
		if !strings.HasPrefix(tl.Name, "test__") {
			t.Errorf("bob's ranking holds %s, not of its server", tl.Name)
		}
	}
	if len(p.Offered) != 4 || p.Offered[0] != "test__add" {
		t.Errorf("bob is offered %v", p.Offered)
	}
	r = run(t, dir, nil, "tools", "--rank", "add", "--agent", "nope")
	if r.code != 2 || !strings.Contains(r.stderr, "no such agent") {
		t.Errorf("unknown agent: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
