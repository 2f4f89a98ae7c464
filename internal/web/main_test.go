package web_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// TestMain checks that the browser tests' stacks (server, agent runtime,
// store) and chromedp stop every goroutine they start.
func TestMain(m *testing.M) {
	// A confined terminal or stdio server re-executes this binary as the
	// sandbox's shim.
	if code, ok := sandbox.Shim(os.Args); ok {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}
