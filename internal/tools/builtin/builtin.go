package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/protect"
	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

// Defaults for the zero fields of [Options].
const (
	DefaultMaxReadBytes      = 256 << 10
	DefaultTerminalTimeout   = 30 * time.Second
	DefaultTerminalMaxOutput = 64 << 10
)

// Options configures the built-in tools. A nil *Options or a zero field means
// the default.
type Options struct {
	// Roots are the directories the file tools may touch and terminal may
	// start in. Empty means the working directory. Each must exist and be a
	// directory; it is made absolute and clean.
	Roots []string
	// Disabled names tools not to create; an unknown name is an error.
	Disabled []string
	// MaxReadBytes caps how much text read_file returns per call
	// (default [DefaultMaxReadBytes]).
	MaxReadBytes int64
	// TerminalTimeout is terminal's default timeout (default
	// [DefaultTerminalTimeout]); a call may ask for up to 20 times this.
	TerminalTimeout time.Duration
	// TerminalMaxOutput caps terminal's output in bytes (default
	// [DefaultTerminalMaxOutput]); the head and the tail are kept.
	TerminalMaxOutput int
	// OutputDir is where the registry stores oversized tool outputs, as
	// <user>/<id>.txt ([tools.UserOutputDir]). Empty means
	// read_tool_output is not created.
	OutputDir string
	// Uploads reads the files people uploaded into conversations; nil
	// means read_upload is not created.
	Uploads UploadSource
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Environ returns Switchboard's environment, from which terminal
	// takes the minimal base and the TerminalInheritEnv variables; nil
	// means os.Environ.
	Environ func() []string
	// TerminalInheritEnv lists globs of further variables terminal
	// commands get from Environ (e.g. "GOPATH", "NPM_*").
	TerminalInheritEnv []string
	// TerminalSandbox is how terminal commands are confined:
	// [SandboxAuto] ("", the default) where [sandbox.Check] reports
	// support, [SandboxRequired] always (calls fail where it cannot), or
	// [SandboxOff] never.
	TerminalSandbox string
	// TerminalPolicy is the confinement of terminal commands. Their
	// Read gets [sandbox.SystemRead] and the roots added, their Write the
	// roots; Hide (the data directory, the config file), Network and
	// Limits are used as given. Confine is set by TerminalSandbox.
	TerminalPolicy sandbox.Policy
	// Protected is what the file tools refuse to read or change, even
	// inside the roots: Switchboard's data directory and config files
	// (see internal/protect). Terminal commands get it through
	// TerminalPolicy's Protected. Nil protects nothing.
	Protected *protect.Set
}

// Values of [Options.TerminalSandbox].
const (
	SandboxAuto     = "auto"
	SandboxRequired = "required"
	SandboxOff      = "off"
)

// Tool names.
const (
	nameReadFile       = "read_file"
	nameWriteFile      = "write_file"
	nameEditFile       = "edit_file"
	nameListDir        = "list_dir"
	nameGrep           = "grep"
	nameTerminal       = "terminal"
	nameCalculator     = "calculator"
	nameCurrentTime    = "current_time"
	nameReadToolOutput = "read_tool_output"
	nameReadUpload     = "read_upload"
)

// Names returns the name of every built-in tool, in the order [New] returns
// them. The result is a fresh slice.
func Names() []string {
	return []string{
		nameReadFile, nameWriteFile, nameEditFile, nameListDir, nameGrep,
		nameTerminal, nameCalculator, nameCurrentTime, nameReadToolOutput,
		nameReadUpload,
	}
}

// New builds the built-in tools that opts does not disable, in the order of
// [Names]. It fails when a root is missing or not a directory, or when
// Disabled names an unknown tool. The tools are safe for concurrent use and
// hold no open files between calls.
func New(opts *Options) ([]tools.Tool, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxReadBytes <= 0 {
		o.MaxReadBytes = DefaultMaxReadBytes
	}
	if o.TerminalTimeout <= 0 {
		o.TerminalTimeout = DefaultTerminalTimeout
	}
	if o.TerminalMaxOutput <= 0 {
		o.TerminalMaxOutput = DefaultTerminalMaxOutput
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	switch o.TerminalSandbox {
	case "", SandboxAuto, SandboxRequired, SandboxOff:
	default:
		return nil, fmt.Errorf("terminal sandbox %q: want auto, required or off", o.TerminalSandbox)
	}
	all := Names()
	disabled := make(map[string]bool)
	for _, n := range o.Disabled {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("disabling built-in tool %q: no such tool (known: %s)", n, strings.Join(all, ", "))
		}
		disabled[n] = true
	}
	rs, err := newRoots(o.Roots, o.Protected)
	if err != nil {
		return nil, err
	}
	if o.OutputDir != "" {
		if o.OutputDir, err = filepath.Abs(o.OutputDir); err != nil {
			return nil, fmt.Errorf("resolving tool output directory: %w", err)
		}
	}

	build := map[string]func() *tool{
		nameReadFile:   func() *tool { return newReadFile(rs, o.MaxReadBytes) },
		nameWriteFile:  func() *tool { return newWriteFile(rs) },
		nameEditFile:   func() *tool { return newEditFile(rs) },
		nameListDir:    func() *tool { return newListDir(rs) },
		nameGrep:       func() *tool { return newGrep(rs) },
		nameTerminal:   func() *tool { return newTerminal(rs, &o) },
		nameCalculator: newCalculator,
		nameCurrentTime: func() *tool {
			return newCurrentTime(o.Now)
		},
		nameReadToolOutput: func() *tool {
			if o.OutputDir == "" {
				return nil
			}
			return newReadToolOutput(o.OutputDir)
		},
		nameReadUpload: func() *tool {
			if o.Uploads == nil {
				return nil
			}
			return newReadUpload(o.Uploads)
		},
	}
	var out []tools.Tool
	for _, n := range all {
		if disabled[n] {
			continue
		}
		if t := build[n](); t != nil {
			out = append(out, t)
		}
	}
	return out, nil
}

// tool is one built-in: its description and the function that runs it.
type tool struct {
	info tools.Info
	// run decodes args itself; it returns a Go error only when ctx ended.
	run func(ctx context.Context, args json.RawMessage) (*tools.Result, error)
}

var _ tools.Tool = (*tool)(nil)

// Info returns the tool's description. The schema is a copy the caller may keep.
func (t *tool) Info() tools.Info {
	i := t.info
	i.InputSchema = bytes.Clone(i.InputSchema)
	if i.Annotations != nil {
		a := *i.Annotations
		i.Annotations = &a
	}
	return i
}

// Call runs the tool. Failures the model should see are results with IsError;
// the Go error is non-nil only when ctx ended.
func (t *tool) Call(ctx context.Context, req *tools.CallRequest) (*tools.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var args json.RawMessage
	if req != nil {
		args = req.Arguments
	}
	return t.run(ctx, args)
}

// decodeArgs decodes a JSON object strictly into v: unknown fields, trailing
// data and wrong types are errors worded for the model.
func decodeArgs(name string, raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %v; pass a JSON object matching the input schema", name, err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("invalid arguments for %s: unexpected data after the JSON object", name)
	}
	return nil
}

// errResult turns err into a tool-error result the model can read.
func errResult(err error) *tools.Result { return tools.ErrorResult(err.Error()) }

func ptr[T any](v T) *T { return &v }

func readOnly(title string) *tools.Annotations {
	return &tools.Annotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
}

func destructive(title string, idempotent, openWorld bool) *tools.Annotations {
	return &tools.Annotations{Title: title, DestructiveHint: ptr(true), IdempotentHint: idempotent, OpenWorldHint: ptr(openWorld)}
}

// schema validates a hand-written JSON Schema at construction; a broken one
// is a programmer error.
func schema(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		panic("builtin: invalid JSON schema: " + s)
	}
	return json.RawMessage(s)
}
