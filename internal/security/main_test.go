package security

import (
	"context"
	"os"
	"os/signal"
	"syscall"
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
		// Signals as cmd/switchboard handles them: tests stop it with an
		// interrupt, which a shell's background job would otherwise ignore.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli.Run(ctx, &cli.Env{
			Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		})
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
