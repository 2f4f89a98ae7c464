// Command switchboard is an MCP host, agent runtime and MCP gateway in one
// binary. Everything lives in internal/cli; main only wires the process to it.
package main

import (
	"os"

	"github.com/switchboard-mcp/switchboard/internal/cli"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

func main() {
	// A sandboxed child is this binary re-executed as the sandbox's shim;
	// it must take over before anything else runs.
	if code, ok := sandbox.Shim(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(cli.Main())
}
