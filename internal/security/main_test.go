package security

import (
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/cli"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// envRunMain makes the test binary run as the switchboard command, for
// tests that need a real Switchboard process to kill.
const envRunMain = "SWITCHBOARD_SECURITY_RUN_MAIN"

func TestMain(m *testing.M) {
	// A confined terminal or stdio server re-executes this binary as the
	// sandbox's shim, as cmd/switchboard does.
	if code, ok := sandbox.Shim(os.Args); ok {
		os.Exit(code)
	}
	if os.Getenv(envRunMain) != "" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}
