package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/tools"
)

func TestMain(m *testing.M) {
	if code, ok := sandbox.Shim(os.Args); ok {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}

// env is a set of built-in tools over fresh roots.
type env struct {
	root  string // the first root
	tools map[string]tools.Tool
}

// newEnv builds the tools over a new temporary root (plus extra roots) with
// opts (Roots is filled in).
func newEnv(t testing.TB, opts *Options, extraRoots ...string) *env {
	t.Helper()
	return newEnvAt(t, t.TempDir(), opts, extraRoots...)
}

// newEnvAt is newEnv with the first root given.
func newEnvAt(t testing.TB, root string, opts *Options, extraRoots ...string) *env {
	t.Helper()
	// Evaluate symlinks so that paths printed in results match (macOS /var).
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Roots = append([]string{root}, extraRoots...)
	ts, err := New(&o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e := &env{root: root, tools: make(map[string]tools.Tool)}
	for _, tl := range ts {
		e.tools[tl.Info().Name] = tl
	}
	return e
}

// call runs tool name with args (a JSON string or a value to marshal).
func (e *env) call(t *testing.T, name string, args any) *tools.Result {
	t.Helper()
	tl, ok := e.tools[name]
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := tl.Call(context.Background(), &tools.CallRequest{Arguments: json.RawMessage(raw)})
	if err != nil {
		t.Fatalf("%s(%s): Go error %v", name, raw, err)
	}
	return res
}

// ok calls and fails the test on a tool error.
func (e *env) ok(t *testing.T, name string, args any) string {
	t.Helper()
	res := e.call(t, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): unexpected tool error: %s", name, args, res.Text())
	}
	return res.Text()
}

// fail calls and fails the test unless the tool reports an error containing want.
func (e *env) fail(t *testing.T, name string, args any, want string) string {
	t.Helper()
	res := e.call(t, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v): want an error containing %q, got success: %s", name, args, want, res.Text())
	}
	if !strings.Contains(res.Text(), want) {
		t.Fatalf("%s(%v): error %q does not contain %q", name, args, res.Text(), want)
	}
	return res.Text()
}

// write creates a file under dir with content, making parents.
func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNames(t *testing.T) {
	e := newEnv(t, &Options{OutputDir: t.TempDir(), Uploads: uploadMap{}})
	var got []string
	for n := range e.tools {
		got = append(got, n)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(Names()))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	write(t, file, "x")
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"missing root", Options{Roots: []string{filepath.Join(dir, "nope")}}, "checking root"},
		{"root is a file", Options{Roots: []string{file}}, "not a directory"},
		{"empty root", Options{Roots: []string{""}}, "a root is empty"},
		{"unknown disabled", Options{Roots: []string{dir}, Disabled: []string{"rm_rf"}}, `disabling built-in tool "rm_rf": no such tool`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(&tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestNewDefaultsAndDisabled(t *testing.T) {
	ts, err := New(nil) // the working directory is the root
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range ts {
		got = append(got, tl.Info().Name)
	}
	want := slices.DeleteFunc(Names(), func(n string) bool { return n == nameReadToolOutput || n == nameReadUpload })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("New(nil) tools mismatch (-want +got):\n%s", diff)
	}

	ts, err = New(&Options{Roots: []string{t.TempDir()}, Disabled: []string{nameTerminal, nameWriteFile}, OutputDir: t.TempDir(), Uploads: uploadMap{}})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, tl := range ts {
		got = append(got, tl.Info().Name)
	}
	want = slices.DeleteFunc(Names(), func(n string) bool { return n == nameTerminal || n == nameWriteFile })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("disabled tools mismatch (-want +got):\n%s", diff)
	}
}

// TestInfo checks every tool's description, schema and annotations.
func TestInfo(t *testing.T) {
	e := newEnv(t, &Options{OutputDir: t.TempDir(), Uploads: uploadMap{}})
	readOnlyTools := []string{nameReadFile, nameListDir, nameGrep, nameCalculator, nameCurrentTime, nameReadToolOutput, nameReadUpload}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			info := e.tools[name].Info()
			if info.Name != name || info.Title == "" {
				t.Errorf("name %q title %q", info.Name, info.Title)
			}
			if len(info.Description) < 200 || strings.Contains(info.Description, "%!") {
				t.Errorf("description is short or badly formatted:\n%s", info.Description)
			}
			var s struct {
				Type                 string                     `json:"type"`
				Properties           map[string]json.RawMessage `json:"properties"`
				Required             []string                   `json:"required"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			}
			if err := json.Unmarshal(info.InputSchema, &s); err != nil {
				t.Fatalf("schema: %v", err)
			}
			if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Errorf("schema must be a strict object: %s", info.InputSchema)
			}
			for _, r := range s.Required {
				if _, ok := s.Properties[r]; !ok {
					t.Errorf("required %q is not a property", r)
				}
			}
			for p, raw := range s.Properties {
				if !bytes.Contains(raw, []byte(`"description"`)) {
					t.Errorf("property %q has no description", p)
				}
			}
			c := jsonschema.NewCompiler()
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(info.InputSchema))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.AddResource("schema.json", doc); err != nil {
				t.Fatal(err)
			}
			sch, err := c.Compile("schema.json")
			if err != nil {
				t.Fatalf("schema does not compile: %v", err)
			}
			if err := sch.Validate(map[string]any{"no_such_field": 1}); err == nil {
				t.Errorf("schema accepts unknown fields")
			}
			a := info.Annotations
			if slices.Contains(readOnlyTools, name) {
				if !a.ReadOnly() || a.Destructive() {
					t.Errorf("want read-only, got %+v", a)
				}
			} else if a.ReadOnly() || !a.Destructive() || a.DestructiveHint == nil {
				t.Errorf("want explicitly destructive, got %+v", a)
			}
		})
	}
}

func TestArgumentErrors(t *testing.T) {
	e := newEnv(t, &Options{OutputDir: t.TempDir(), Uploads: uploadMap{}})
	tests := []struct {
		tool, args, want string
	}{
		{nameReadFile, `{"path":"a","bogus":1}`, `unknown field "bogus"`},
		{nameReadFile, `{"path":7}`, "invalid arguments for read_file"},
		{nameReadFile, `[1]`, "invalid arguments for read_file"},
		{nameReadFile, `{"path":"a"} {}`, "unexpected data after the JSON object"},
		{nameReadFile, `{}`, "path is empty"},
		{nameWriteFile, `{"path":"a"}`, "content is required"},
		{nameEditFile, `{"path":"a","old_text":"","new_text":"x"}`, "old_text is empty"},
		{nameGrep, `null`, "pattern is required"},
		{nameCalculator, ``, "expression is empty"},
		{nameTerminal, `{"command":"  "}`, "command is empty"},
		{nameReadToolOutput, `{}`, "is malformed"},
		{nameReadUpload, `{}`, "is malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			e.fail(t, tt.tool, tt.args, tt.want)
		})
	}
}

func TestCallHonoursCancelledContext(t *testing.T) {
	e := newEnv(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, tl := range e.tools {
		if _, err := tl.Call(ctx, &tools.CallRequest{Arguments: json.RawMessage(`{"expression":"1"}`)}); err == nil {
			t.Errorf("%s: want context error", name)
		}
	}
}
