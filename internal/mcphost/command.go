package mcphost

import (
	"errors"
	"io"
	"os/exec"

	"github.com/switchboard-mcp/switchboard/internal/mcphost/stdio"
)

// stdioCommand builds the command of a stdio server: program, arguments,
// working directory, environment and sandbox (through [ServerConfig.command]),
// where its stderr goes, and its process group. Nothing is started; the
// transport (and doctor's probe) start it. It is the one place that decides
// how a server process is made.
func stdioCommand(sc *ServerConfig, stderr io.Writer) (*exec.Cmd, *stdio.ProcGroup, error) {
	if sc.Command == "" {
		return nil, nil, setupError{errors.New("no command configured for stdio server")}
	}
	cmd, err := sc.command()
	if err != nil {
		return nil, nil, setupError{err}
	}
	cmd.Stderr = stderr
	// A grandchild holding stderr open must not keep Wait (and so Close)
	// from returning once the child itself has exited.
	cmd.WaitDelay = sc.shutdownTimeout()
	pg := stdio.NewProcGroup(cmd)
	return cmd, pg, nil
}
