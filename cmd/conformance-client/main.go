// Command conformance-client is the client side of the official MCP
// conformance suite (npm @modelcontextprotocol/conformance) for Switchboard:
// it connects to the suite's test server through internal/mcphost, the same
// code path `switchboard serve` uses, and does what the scenario asks.
//
// The suite runs it as `conformance-client <server-url>` with the scenario
// name in MCP_CONFORMANCE_SCENARIO and, for some scenarios, a JSON object in
// MCP_CONFORMANCE_CONTEXT. It exits 0 when the scenario's client steps
// completed; the suite itself judges conformance from what it observed.
// .ci/conformance runs every scenario; docs/CONFORMANCE.md has the results.
//
// Layer: a test program. Nothing imports it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance-client:", err)
		os.Exit(1)
	}
}

// run is main without the process: args are the command-line arguments
// after the program name; getenv reads the environment.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("missing server url: usage: conformance-client <server-url> (scenario in $%s)", envScenario)
	}
	url := args[len(args)-1]
	name := getenv(envScenario)
	if name == "" {
		return fmt.Errorf("$%s is not set: the conformance suite sets it to the scenario name", envScenario)
	}
	sc, err := lookupScenario(name)
	if err != nil {
		return err
	}
	cc, err := parseContext(getenv(envContext))
	if err != nil {
		return err
	}
	s := &session{url: url, scenario: name, cctx: cc, log: stderr}
	return s.run(ctx, sc)
}
