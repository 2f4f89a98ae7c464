package main

import (
	"io"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/mcptest"
)

// TestRunAgainstRealServer runs scenarios end to end through mcphost against
// an in-process Streamable HTTP server, the way the suite runs the binary.
func TestRunAgainstRealServer(t *testing.T) {
	cfg, _ := mcptest.HTTPServer(t, "conformance", nil)
	env := func(scenario string) func(string) string {
		return func(k string) string {
			if k == envScenario {
				return scenario
			}
			return ""
		}
	}
	if err := run(t.Context(), []string{cfg.URL}, env("initialize"), io.Discard); err != nil {
		t.Errorf("initialize: %v", err)
	}
	// tools_call needs the suite's add_numbers tool, which this server lacks:
	// the error must say so and name the tools that are there.
	err := run(t.Context(), []string{cfg.URL}, env("tools_call"), io.Discard)
	if err == nil || !strings.Contains(err.Error(), `no tool "add_numbers"`) || !strings.Contains(err.Error(), "echo") {
		t.Errorf("tools_call against a server without add_numbers: error = %v", err)
	}
}

func TestRunReportsConnectFailure(t *testing.T) {
	cfg, hs := mcptest.HTTPServer(t, "conformance", nil)
	hs.Close() // nothing listens there any more
	err := run(t.Context(), []string{cfg.URL}, func(k string) string {
		if k == envScenario {
			return "initialize"
		}
		return ""
	}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "connecting to "+cfg.URL) {
		t.Errorf("error = %v, want a connect error naming the url", err)
	}
}
