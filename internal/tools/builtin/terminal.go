package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

//go:embed terminal.md
var terminalDoc string

// terminalMaxTimeout bounds timeout_seconds unless the configured default is larger.
const terminalMaxTimeout = 10 * time.Minute

// pipeGrace is how long the output pipe may stay open after the process
// group is killed, held by a process that left the group, before Call stops
// reading it and returns.
const pipeGrace = 500 * time.Millisecond

type terminalArgs struct {
	Command        string `json:"command"`
	Cwd            string `json:"cwd"`
	TimeoutSeconds int    `json:"timeout_seconds"`
}

type terminal struct {
	rs        *roots
	timeout   time.Duration
	maxTime   time.Duration
	maxOutput int
	environ   func() []string
	inherit   []string
	conf      confinement
}

func newTerminal(rs *roots, o *Options) *tool {
	timeout := o.TerminalTimeout
	t := &terminal{
		rs: rs, timeout: timeout, maxTime: max(terminalMaxTimeout, timeout), maxOutput: o.TerminalMaxOutput,
		environ: o.Environ, inherit: o.TerminalInheritEnv, conf: newConfinement(rs, o, sandbox.Check()),
	}
	defSec, maxSec := int(timeout.Round(time.Second)/time.Second), int(t.maxTime/time.Second)
	return &tool{
		info: tools.Info{
			Name:        nameTerminal,
			Title:       "Run shell command",
			Description: fmt.Sprintf(terminalDoc, defSec, maxSec, formatSize(int64(t.maxOutput)), t.conf.about),
			InputSchema: schema(fmt.Sprintf(`{"type":"object","properties":{`+
				`"command":{"type":"string","minLength":1,"description":"Shell command line, run with /bin/sh -c."},`+
				`"cwd":{"type":"string","description":"Working directory: relative to the first allowed root, or absolute inside a root. Default: the first root."},`+
				`"timeout_seconds":{"type":"integer","minimum":1,"maximum":%d,"description":"Time limit in seconds. Default %d."}`+
				`},"required":["command"],"additionalProperties":false}`, maxSec, defSec)),
			Annotations: destructive("Run shell command", false, true),
		},
		run: func(ctx context.Context, raw json.RawMessage) (*tools.Result, error) {
			var a terminalArgs
			if err := decodeArgs(nameTerminal, raw, &a); err != nil {
				return errResult(err), nil
			}
			return t.run(ctx, a)
		},
	}
}

func (t *terminal) run(ctx context.Context, a terminalArgs) (*tools.Result, error) {
	if t.conf.refuse != "" {
		return tools.ErrorResult(t.conf.refuse), nil
	}
	if strings.TrimSpace(a.Command) == "" {
		return tools.ErrorResult("command is empty; give a shell command line such as `ls -la`"), nil
	}
	timeout := t.timeout
	if a.TimeoutSeconds != 0 {
		timeout = time.Duration(a.TimeoutSeconds) * time.Second
		if a.TimeoutSeconds < 0 || timeout > t.maxTime {
			return tools.ErrorResult(fmt.Sprintf("timeout_seconds %d is out of range; use 1 to %d", a.TimeoutSeconds, int(t.maxTime/time.Second))), nil
		}
	}
	dir, err := t.dir(a.Cwd)
	if err != nil {
		return errResult(err), nil
	}

	// One pipe for stdout and stderr keeps their order. It is an *os.File,
	// so exec hands it to the child without a copying goroutine of its own
	// and Wait returns as soon as the shell exits; this call reads the pipe.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating the output pipe: %w", err)
	}
	defer pr.Close()
	// The command runs in a process group of its own (and, confined, as
	// the child of a shim whose death ends the whole sandbox); on cancel
	// the group is killed (killGroup below).
	cmd, err := sandbox.Command(t.conf.policy, dir, sandbox.Environ(t.environ(), t.inherit, nil), "/bin/sh", "-c", a.Command)
	if err != nil {
		pw.Close()
		return tools.ErrorResult(fmt.Sprintf("starting the command: %v", err)), nil
	}
	cmd.Stdout = pw
	cmd.Stderr = pw
	err = sandbox.Start(cmd)
	pw.Close() // the child has its copy; EOF comes when every holder exits
	if err != nil {
		return tools.ErrorResult(fmt.Sprintf("starting the command: %v", err)), nil
	}
	// This call owns both goroutines and receives from both channels
	// before it returns.
	out := newHeadTail(t.maxOutput)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, pr) // ends at EOF, or when pr is closed below
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()

	var waitErr error
	var timedOut bool
	select {
	case waitErr = <-done:
	case <-timer.C:
		killGroup(cmd)
		waitErr, timedOut = <-done, true
	case <-ctx.Done():
		killGroup(cmd)
		waitErr = <-done // the kill we caused; ctx's error is what is reported
	}
	killGroup(cmd) // background children must not outlive the call
	grace := time.NewTimer(pipeGrace)
	defer grace.Stop()
	select {
	case <-copied:
	case <-grace.C:
		// A process outside the group still holds the pipe: stop reading.
		pr.Close()
		<-copied
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if timedOut {
		return tools.ErrorResult(withStatus(out.String(), fmt.Sprintf("[timed out after %s; the command and its child processes were killed]", timeout))), nil
	}

	text := out.String()
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
		return tools.TextResult(withStatus(text, "[exit code 0]")), nil
	case errors.As(waitErr, &exitErr):
		if code := exitErr.ExitCode(); code >= 0 {
			return tools.ErrorResult(withStatus(text, fmt.Sprintf("[exit code %d]", code))), nil
		}
		return tools.ErrorResult(withStatus(text, fmt.Sprintf("[terminated: %v]", exitErr))), nil
	default:
		return tools.ErrorResult(withStatus(text, fmt.Sprintf("[running the command failed: %v]", waitErr))), nil
	}
}

// dir resolves cwd to a directory inside a root. The check goes through
// [os.Root]; the shell then gets the path by name, which is no weaker than
// the shell itself, which can cd anywhere.
func (t *terminal) dir(cwd string) (string, error) {
	if cwd == "" {
		cwd = "."
	}
	l, err := t.rs.resolve(cwd)
	if err != nil {
		return "", err
	}
	r, err := l.open()
	if err != nil {
		return "", err
	}
	defer r.Close()
	st, err := r.Stat(l.rel)
	if err != nil {
		return "", t.rs.fsError("using working directory", l, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("cwd %q is %s, not a directory", cwd, kind(st.Mode()))
	}
	return filepath.Join(l.root.dir, l.rel), nil
}

// withStatus appends a status line to a command's output.
func withStatus(output, status string) string {
	switch {
	case output == "":
		return "[no output]\n" + status
	case strings.HasSuffix(output, "\n"):
		return output + status
	}
	return output + "\n" + status
}
