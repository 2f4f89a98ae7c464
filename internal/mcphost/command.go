package mcphost

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// stdioCommand builds the command of a stdio server: program, arguments,
// working directory, environment, where its stderr goes, and its process
// group. Nothing is started; the transport (and doctor's probe) start it.
// It is the one place that decides how a server process is made.
func stdioCommand(sc *ServerConfig, stderr io.Writer) (*exec.Cmd, *procGroup, error) {
	if sc.Command == "" {
		return nil, nil, setupError{errors.New("no command configured for stdio server")}
	}
	// Not CommandContext: the process must outlive the connect attempt's
	// context; the transport's Close stops it.
	cmd := exec.Command(sc.Command, sc.Args...) //nolint:noctx // see above
	if cmd.Err != nil {
		return nil, nil, setupError{fmt.Errorf("finding command %q: %w (install it or put its directory on PATH)", sc.Command, cmd.Err)}
	}
	cmd.Dir = sc.Dir
	if len(sc.Env) > 0 {
		env := cmd.Environ()
		for k, v := range sc.Env {
			env = append(env, k+"="+v)
		}
		cmd.Env = env
	}
	cmd.Stderr = stderr
	// A grandchild holding stderr open must not keep Wait (and so Close)
	// from returning once the child itself has exited.
	cmd.WaitDelay = sc.shutdownTimeout()
	pg := newProcGroup(cmd)
	return cmd, pg, nil
}
