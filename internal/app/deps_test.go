package app

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/switchboard-mcp/switchboard"

// layer of each internal package (path relative to the module). Packages not
// listed here fail the test, so a new package must choose its layer.
// See STYLE.md section 2 and docs/ARCHITECTURE.md.
var layers = map[string]int{
	"internal/sse":        1,
	"internal/observe":    1, // metrics and tracing, for every layer
	"internal/version":    1,
	"internal/web":        1,
	"internal/config":     1,
	"internal/schema":     1,
	"internal/sandbox":    1, // starts children under a policy; builtin and mcphost share it
	"internal/redact":     1, // hides secrets in what is shown; config and every surface use it
	"internal/jsonstring": 1, // JSON strings written by hand on the hot paths (journal, gateway answers)
	"internal/oauth":      1, // OAuth authorization server rules (PKCE, redirects, metadata, client ID documents): server and app use it
	"internal/signin":     1, // OpenID Connect sign-in, the relying party (go-oidc stays inside): server and app use it
	"internal/protect":    1, // the one rule keeping tools off Switchboard's own files: file tools and sandboxes use it

	"internal/llm":        2,
	"internal/tools":      2,
	"internal/tools/rank": 2, // the tool retriever: agent uses it (cli through app); app gives it to textcall
	"internal/store":      2,

	"internal/llm/openai":     3,
	"internal/llm/anthropic":  3,
	"internal/llm/gemini":     3,
	"internal/llm/ollama":     3,
	"internal/llm/textcall":   3,
	"internal/tools/builtin":  3,
	"internal/tools/openapi":  3,
	"internal/tools/pin":      3, // tool pinning: tools plus the store's pins; app and server use it
	"internal/mcphost":        3,
	"internal/mcphost/stdio":  3, // the stdio transport: mcphost's client runs on it; see fenced
	"internal/gate":           3, // the one enforcement path of tool calls: agent, server and mcpserve call it
	"internal/users":          3, // the cached view of the users: server and the gateway authenticate through it
	"internal/store/sqlite":   3,
	"internal/store/postgres": 3,
	"internal/store/sqlstore": 3, // the SQL both dialects share

	"internal/agent":    4,
	"internal/server":   4,
	"internal/mcpserve": 4,

	"internal/app": 5,
	"internal/cli": 6,

	"cmd/switchboard":        7,
	"cmd/conformance-client": 7,
	"internal/security":      7, // the security test suite: tests only, imports nothing in non-test files
}

// testSupport packages exist for tests only; no production package may import them.
var testSupport = []string{
	"internal/llm/llmtest",
	"internal/store/storetest",
	"internal/mcphost/mcptest",
	"internal/tools/openapi/emailserver",
	"internal/sandbox/sandboxtest",
	"internal/tools/rank/ranktest",
	"internal/cli/clitest",
	"internal/security", // the security test suite: tests only
}

// adapters may be imported only by internal/app (and commands for their own tools).
var adapters = map[string]bool{
	"internal/llm/openai":     true,
	"internal/llm/anthropic":  true,
	"internal/llm/gemini":     true,
	"internal/llm/ollama":     true,
	"internal/llm/textcall":   true,
	"internal/tools/builtin":  true,
	"internal/tools/openapi":  true,
	"internal/mcphost":        true,
	"internal/store/sqlite":   true,
	"internal/store/postgres": true,
}

// sideways lists the allowed edges inside one layer.
var sideways = map[[2]string]bool{
	{"internal/store", "internal/llm"}:                     true,
	{"internal/config", "internal/redact"}:                 true, // config check redacts as every surface does
	{"internal/tools/rank", "internal/tools"}:              true, // ranks tools.Entry values
	{"internal/server", "internal/agent"}:                  true, // the HTTP API runs agents
	{"internal/mcphost", "internal/mcphost/stdio"}:         true, // the client starts its stdio transport
	{"internal/store/sqlite", "internal/store/sqlstore"}:   true,
	{"internal/store/postgres", "internal/store/sqlstore"}: true,
}

// fenced packages may import no package of the module but those in
// imports, and be imported by none but those in importedBy.
var fenced = map[string]struct{ imports, importedBy []string }{
	// The stdio transport knows nothing of configuration, supervision,
	// OAuth or the pool: it carries messages for mcphost alone.
	"internal/mcphost/stdio": {
		imports:    []string{"internal/tools", "internal/sandbox"},
		importedBy: []string{"internal/mcphost"},
	},
}

const goSDK = "github.com/modelcontextprotocol/go-sdk"

func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from := strings.TrimPrefix(fields[0], module+"/")
		if isTestSupport(from) {
			continue
		}
		// Packages below a listed package (e.g. internal/mcphost/internal/x)
		// take the layer of the nearest listed ancestor.
		fromLayer, ok := layerOf(from)
		if !ok {
			t.Errorf("package %s has no layer: add it to layers in deps_test.go and say why in docs/ARCHITECTURE.md", from)
			continue
		}
		for _, imp := range fields[1:] {
			checkEdge(t, from, fromLayer, imp)
		}
	}
}

func checkEdge(t *testing.T, from string, fromLayer int, imp string) {
	t.Helper()
	if strings.HasPrefix(imp, goSDK) {
		if !under(from, "internal/mcphost") && !under(from, "internal/mcpserve") {
			t.Errorf("%s imports %s: go-sdk types stay inside mcphost and mcpserve", from, imp)
		}
		return
	}
	if !strings.HasPrefix(imp, module+"/") {
		return
	}
	to := strings.TrimPrefix(imp, module+"/")
	if isTestSupport(to) {
		t.Errorf("%s imports test-support package %s: only tests may", from, to)
		return
	}
	toLayer, ok := layerOf(to)
	if !ok {
		return // reported when the package itself is visited
	}
	toRoot, _ := root(to)
	fromRoot, _ := root(from)
	if f, ok := fenced[fromRoot]; ok && fromRoot != toRoot && !slices.Contains(f.imports, toRoot) {
		t.Errorf("%s imports %s: it may import only %v of this module", from, to, f.imports)
	}
	if f, ok := fenced[toRoot]; ok && fromRoot != toRoot && !slices.Contains(f.importedBy, fromRoot) {
		t.Errorf("%s imports %s: only %v may", from, to, f.importedBy)
	}
	if fromRoot == toRoot {
		return // a package and its own internal subpackages
	}
	switch {
	case to == "internal/config" && from != "internal/app" && from != "internal/cli":
		t.Errorf("%s imports config: only app and cli read config; take an Options struct instead", from)
	case adapters[toRoot] && fromLayer != 5 && fromLayer < 7:
		t.Errorf("%s imports adapter %s: only internal/app chooses adapters", from, to)
	case toLayer > fromLayer:
		t.Errorf("%s (layer %d) imports %s (layer %d): imports go downwards only", from, fromLayer, to, toLayer)
	case toLayer == fromLayer && !sideways[[2]string{fromRoot, toRoot}] && fromLayer != 7:
		t.Errorf("%s imports %s from its own layer %d: not an allowed sideways edge", from, to, toLayer)
	}
}

func layerOf(p string) (int, bool) {
	r, ok := root(p)
	if !ok {
		return 0, false
	}
	return layers[r], true
}

// root returns the nearest listed ancestor of p (or p itself).
func root(p string) (string, bool) {
	for q := p; q != "." && q != ""; {
		if _, ok := layers[q]; ok {
			return q, true
		}
		i := strings.LastIndex(q, "/")
		if i < 0 {
			break
		}
		q = q[:i]
	}
	return "", false
}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func isTestSupport(p string) bool {
	for _, s := range testSupport {
		if under(p, s) {
			return true
		}
	}
	return false
}

// cliForbidden are the parts the command line asks app for instead of
// building or calling them itself: app is the one composition root.
var cliForbidden = []string{
	"internal/agent", "internal/store", "internal/tools", "internal/gate", "internal/llm",
}

// TestCLIThinFace checks that the command line's production files import
// none of the parts app builds (tests may, to check what they did).
// internal/cli/chat is left out: its Backend speaks the agent's records.
func TestCLIThinFace(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{range .Imports}}{{.}} {{end}}", module+"/internal/cli").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		to := strings.TrimPrefix(imp, module+"/")
		for _, f := range cliForbidden {
			if under(to, f) {
				t.Errorf("internal/cli imports %s: ask app for what the command needs (see docs/ARCHITECTURE.md, \"Parts and layers\")", to)
			}
		}
	}
}
