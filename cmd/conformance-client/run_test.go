package main

import (
	"io"
	"strings"
	"sync"
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
	err = run(t.Context(), []string{cfg.URL}, env("json-schema-2020-12-preservation"), io.Discard)
	if err == nil || !strings.Contains(err.Error(), `no tool "json_schema_2020_12_tool"`) {
		t.Errorf("json-schema-2020-12-preservation against a server without its tools: error = %v", err)
	}
	// http-invalid-tool-headers calls every tool listed: echo gets
	// {"region":...}, which it answers (its own argument is missing, so
	// with an error the client reports).
	var log lockedBuilder
	err = run(t.Context(), []string{cfg.URL}, env("http-invalid-tool-headers"), &log)
	if !strings.Contains(log.String(), "echo:") {
		t.Errorf("http-invalid-tool-headers did not call echo: err %v, log:\n%s", err, log.String())
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

// lockedBuilder is a strings.Builder the pool's logger may write to from
// its goroutines while the test reads it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
