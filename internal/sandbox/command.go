package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// ErrUnsupported is returned by [Command] for a confining policy where the
// kernel (or the platform) cannot confine; [Check] says why.
var ErrUnsupported = errors.New("sandboxing is not supported here")

// Command returns a command that runs name with args under p, in dir, with
// exactly the environment env (build it with [Environ]). A nil p or one
// without Confine starts name directly, in a process group of its own, with
// SIGKILL as its parent-death signal on Linux. With Confine, name is
// resolved on Switchboard's PATH and the returned command runs the shim
// (see the package documentation); its Process is the shim, and killing
// the shim kills everything the command started.
//
// The caller sets Stdin, Stdout, Stderr and WaitDelay and starts the
// command as usual. It must not replace SysProcAttr. Command fails when
// name cannot be found, p is invalid, or confinement is asked for where
// [Check] reports no support (the error wraps [ErrUnsupported]).
func Command(p *Policy, dir string, env []string, name string, args ...string) (*exec.Cmd, error) {
	if p == nil || !p.Confine {
		// Not CommandContext: the caller decides how the process ends
		// (closing stdin, then signals, or killing its group).
		cmd := exec.Command(name, args...) //nolint:noctx // see above
		if cmd.Err != nil {
			return nil, fmt.Errorf("finding command %q: %w (install it or put its directory on PATH)", name, cmd.Err)
		}
		cmd.Dir, cmd.Env = dir, env
		cmd.SysProcAttr = plainAttr()
		return cmd, nil
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if s := Check(); !s.Available {
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, s.Reason)
	}
	path, err := resolve(name, dir)
	if err != nil {
		return nil, err
	}
	exe := p.Exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("finding the switchboard binary to start the sandbox: %w", err)
		}
	}
	return confined(p, exe, dir, p.Env(env), path, args)
}

// resolve finds name as exec.Command would, making a relative path with a
// slash absolute against dir, so the shim can run it after it changed its
// own mounts.
func resolve(name, dir string) (string, error) {
	if strings.Contains(name, string(filepath.Separator)) {
		if !filepath.IsAbs(name) {
			base := dir
			if base == "" {
				wd, err := os.Getwd()
				if err != nil {
					return "", fmt.Errorf("resolving command %q: %w", name, err)
				}
				base = wd
			} else if !filepath.IsAbs(base) {
				abs, err := filepath.Abs(base)
				if err != nil {
					return "", fmt.Errorf("resolving command %q: %w", name, err)
				}
				base = abs
			}
			name = filepath.Join(base, name)
		}
		if _, err := os.Stat(name); err != nil {
			return "", fmt.Errorf("finding command %q: %w", name, err)
		}
		return name, nil
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("finding command %q: %w (install it or put its directory on PATH)", name, err)
	}
	return filepath.Abs(path)
}

// Env returns the environment a command started by [Command] with env
// sees under p: confined, TMPDIR is /tmp, which the shim makes private to
// the sandbox (the host's TMPDIR is not writable there); otherwise env.
func (p *Policy) Env(env []string) []string {
	if p == nil || !p.Confine {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	out = append(out, "TMPDIR=/tmp")
	slices.Sort(out)
	return out
}

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// Start starts cmd, made by [Command], and then closes cmd.ExtraFiles: the
// mounts Command opened for the sandbox's shim, which has its own copies
// once started. Use it instead of cmd.Start so they do not stay open in
// Switchboard until cmd is garbage. An unconfined command has none.
func Start(cmd *exec.Cmd) error {
	err := cmd.Start()
	closeAll(cmd.ExtraFiles)
	if errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("starting %s: a descriptor it needed was already closed (start a command from Command once): %w", cmd.Path, err)
	}
	return err
}
