package sandbox_test

import (
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

func TestMain(m *testing.M) {
	if code, ok := sandbox.Shim(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
