package mcpserve_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// TestInspectorCLI lists and calls tools with the MCP Inspector's CLI, a
// client Switchboard does not share code with.
func TestInspectorCLI(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/inspector")
	srv := newServer(t, catalogue(), nil, nil)
	url := serveHTTP(t, srv).URL + "/mcp"
	run := func(args ...string) string {
		t.Helper()
		args = append([]string{
			filepath.Join(nm, "@modelcontextprotocol/inspector/clients/launcher/build/index.js"), "--cli", url,
			"--transport", "http", "--header", callerHeader + ": inspector",
		}, args...)
		cmd := exec.CommandContext(t.Context(), node, args...)
		home := t.TempDir()
		cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"), "NO_COLOR=1")
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("inspector %v: %v\n%s\n%s", args[1:], err, out, ee.Stderr)
			}
			t.Fatalf("inspector %v: %v", args[1:], err)
		}
		return string(out)
	}

	var list struct{ Tools []*mcp.Tool }
	if out := run("--method", "tools/list"); json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("inspector tools/list printed %q, want JSON", out)
	}
	if diff := cmp.Diff([]string{"calculator", "files__read", "files__write", "mail__send"}, toolNames(list.Tools)); diff != "" {
		t.Errorf("inspector tools/list mismatch (-want +got):\n%s", diff)
	}

	out := run("--method", "tools/call", "--tool-name", "files__read", "--tool-arg", "path=a.txt")
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("inspector tools/call printed %q, want JSON", out)
	}
	if len(res.Content) != 1 || res.Content[0].Text != `{"path":"a.txt"}` || res.IsError {
		t.Errorf("inspector tools/call printed %s, want the echoed arguments", out)
	}
}

// conformanceTools are catalogue tools with the names and results of the
// conformance suite's fixtures that a gateway can serve: tools whose
// results (text, image, audio, resources, errors, progress, a 2020-12
// schema) pass through the catalogue. Fixtures that make the server itself
// sample, elicit or log have no counterpart in the catalogue's Tool
// contract.
func conformanceTools() []tools.Tool {
	png := []byte("\x89PNG\r\n\x1a\n") // only its presence is checked
	result := func(r *tools.Result) func(context.Context, *tools.CallRequest) (*tools.Result, error) {
		return func(context.Context, *tools.CallRequest) (*tools.Result, error) { return r, nil }
	}
	return []tools.Tool{
		tool("test_simple_text", readOnly, result(tools.TextResult("This is a simple text response for testing."))),
		tool("test_image_content", readOnly, result(&tools.Result{Content: []tools.Content{{Type: tools.ContentImage, Data: png, MIMEType: "image/png"}}})),
		tool("test_audio_content", readOnly, result(&tools.Result{Content: []tools.Content{{Type: tools.ContentAudio, Data: []byte("RIFF"), MIMEType: "audio/wav"}}})),
		tool("test_embedded_resource", readOnly, result(&tools.Result{Content: []tools.Content{
			{Type: tools.ContentResource, URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."},
		}})),
		tool("test_multiple_content_types", readOnly, result(&tools.Result{Content: []tools.Content{
			{Type: tools.ContentText, Text: "Multiple content types test:"},
			{Type: tools.ContentImage, Data: png, MIMEType: "image/png"},
			{Type: tools.ContentResource, URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`},
		}})),
		tool("test_error_handling", readOnly, result(tools.ErrorResult("This tool intentionally returns an error for testing"))),
		tool("test_tool_with_progress", readOnly, func(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					// The fixture reports with pauses, like a tool at work; the
					// relay merges reports only when the client lags behind.
					select {
					case <-time.After(50 * time.Millisecond):
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				if req.Progress != nil {
					req.Progress(tools.Progress{Progress: p, Total: 100})
				}
			}
			return tools.TextResult("progress done"), nil
		}),
		&tools.Func{Run: echo, Spec: tools.Info{
			Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features",
			InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
				`"$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
				`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`),
			Annotations: readOnly,
		}},
	}
}

// conformancePass are the server scenarios of @modelcontextprotocol/conformance
// 0.1.16 that Switchboard's gateway must pass. The others exercise features
// a gateway of the catalogue does not have: resources, prompts and
// completion (this test's server has no Features), logging (the gateway
// sends no log messages, so it does not advertise the capability), and
// fixture tools that make the server sample, elicit, log or drop its SSE
// stream.
var conformancePass = []string{
	"server-initialize", "ping", "tools-list",
	"tools-call-simple-text", "tools-call-image", "tools-call-audio", "tools-call-embedded-resource",
	"tools-call-mixed-content", "tools-call-error", "tools-call-with-progress",
	"json-schema-2020-12", "server-sse-multiple-streams", "dns-rebinding-protection",
}

// TestConformance runs the MCP conformance suite's server scenarios against
// the HTTP handler and checks that those in conformancePass pass; the
// outcome of every scenario is logged.
func TestConformance(t *testing.T) {
	nm, node := mcptest.NPM(t, "@modelcontextprotocol/conformance")
	reg := tools.NewRegistry(nil)
	reg.Set(tools.Source{Kind: tools.KindBuiltin}, conformanceTools())
	srv := newServer(t, reg, nil, nil)
	url := serveHTTP(t, srv).URL + "/mcp"

	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), node, filepath.Join(nm, "@modelcontextprotocol/conformance/dist/index.js"), "server", "--url", url, "--suite", "all", "-o", dir)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("conformance exit: %v", err) // failures of scenarios outside conformancePass make it non-zero

	results, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if err != nil || len(results) == 0 {
		t.Fatalf("no results written by the conformance suite: %v\n%s", err, out)
	}
	failed := map[string][]string{} // scenario -> failed checks
	seen := map[string]bool{}
	for _, path := range results {
		scenario := scenarioOf(filepath.Base(filepath.Dir(path)))
		seen[scenario] = true
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct{ ID, Status, ErrorMessage string }
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		for _, c := range checks {
			switch c.Status {
			case "FAILURE":
				failed[scenario] = append(failed[scenario], c.ID+": "+c.ErrorMessage)
			case "WARNING":
				// Not a failure, but the scenario did not really run: say so.
				t.Logf("warning in %s: %s: %s", scenario, c.ID, c.ErrorMessage)
			}
		}
	}
	var passed []string
	for s := range seen {
		if len(failed[s]) == 0 {
			passed = append(passed, s)
		}
	}
	slices.Sort(passed)
	t.Logf("passed %d of %d scenarios: %s", len(passed), len(seen), strings.Join(passed, " "))
	for s, f := range failed {
		t.Logf("failed %s: %s", s, strings.Join(f, "; "))
	}
	for _, s := range conformancePass {
		if !seen[s] {
			t.Errorf("scenario %s did not run", s)
		} else if len(failed[s]) > 0 {
			t.Errorf("scenario %s failed: %s", s, strings.Join(failed[s], "; "))
		}
	}
}

// resultsStamp is the timestamp that ends a results directory's name.
var resultsStamp = regexp.MustCompile(`-\d{4}-\d\d-\d\dT[0-9TZ.-]*$`)

// scenarioOf returns the scenario of a results directory named
// [server-]<scenario>-<timestamp>.
func scenarioOf(dir string) string {
	return resultsStamp.ReplaceAllString(strings.TrimPrefix(dir, "server-"), "")
}
