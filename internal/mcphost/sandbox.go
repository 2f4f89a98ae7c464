package mcphost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
)

// command builds the process of a stdio server, the one place where it is
// made: the minimal environment plus InheritEnv and Env, a process group of
// its own, the parent-death signal, and the Sandbox when there is one.
func (sc *ServerConfig) command() (*exec.Cmd, error) {
	return sandbox.Command(sc.Sandbox, sc.Dir, sc.environ(), sc.Command, sc.Args...)
}

func (sc *ServerConfig) environ() []string {
	return sandbox.Environ(os.Environ(), sc.InheritEnv, sc.Env)
}

// EnvNames returns the names of the environment variables the server gets,
// never their values, sorted.
func (sc *ServerConfig) EnvNames() []string {
	return sandbox.Names(sc.Sandbox.Env(sc.environ()))
}

// explainSandbox adds what the sandbox refused, as the server's stderr
// shows it, to the error of a confined server that failed to start.
func explainSandbox(sc *ServerConfig, stderr []string, err error) error {
	if err == nil || sc.Sandbox == nil || !sc.Sandbox.Confine {
		return err
	}
	if why := sandbox.Explain(stderr); why != "" {
		if p := sandbox.Refused(stderr); p != "" {
			// The exact entry to add, not a generic hint: the refused
			// path's directory (a file alone is often one of several).
			dir := p
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				dir = filepath.Dir(p)
			}
			why += fmt.Sprintf("; to allow it: add %s to mcpServers.%s.sandbox.read", dir, sc.Name)
		}
		return fmt.Errorf("%s (mcpServers.%s.sandbox): %w", why, sc.Name, err)
	}
	return err
}
