package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// Main runs the command line of this process (os.Args, the standard
// streams, the real environment) and returns its exit code. An interrupt
// or SIGTERM cancels the command, also when the process was started with
// SIGINT ignored (a shell's background job). cmd/switchboard calls it, and
// so do test binaries that run themselves as switchboard, so that they
// stop the same way.
func Main() int {
	// Descriptors this process inherited without close-on-exec would go
	// to every command and stdio server it starts, sandboxed or not.
	if err := sandbox.CloseInheritedOnExec(); err != nil {
		fmt.Fprintf(os.Stderr, "switchboard: %v; children may inherit descriptors this process was given\n", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, &Env{Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
}
