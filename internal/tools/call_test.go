package tools

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const readSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string"},
		"limit": {"type": "integer", "minimum": 1},
		"mode": {"enum": ["text", "binary"]}
	},
	"required": ["path"],
	"additionalProperties": false
}`

func TestRegistryCallValidation(t *testing.T) {
	r := NewRegistry(nil)
	r.Set(Source{Kind: KindMCP, Server: "files"}, []Tool{newFake("read_file", readSchema)})
	r.Set(Source{Kind: KindBuiltin}, []Tool{newFake("now", `{}`)})
	tests := []struct {
		name    string
		tool    string
		args    string
		want    string
		isError bool
	}{
		{"valid", "files__read_file", `{"path":"a"}`, `{"path":"a"}`, false},
		{"nil args on empty schema", "now", ``, `{}`, false},
		{"null args", "now", `null`, `{}`, false},
		{"whitespace args", "now", " \n", `{}`, false},
		{
			"missing and wrong type", "files__read_file", `{"limit":"ten"}`,
			"invalid arguments for files__read_file: /limit: expected integer, got string; /path: missing required property", true,
		},
		{
			"empty args with required", "files__read_file", ``,
			"invalid arguments for files__read_file: /path: missing required property", true,
		},
		{
			"extra property", "files__read_file", `{"path":"a","x":1}`,
			"invalid arguments for files__read_file: /x: property not allowed", true,
		},
		{
			"minimum and enum", "files__read_file", `{"path":"a","limit":0,"mode":"hex"}`,
			"invalid arguments for files__read_file: /limit: minimum: got 0, want 1; /mode: value must be one of 'text', 'binary'", true,
		},
		{"array", "now", `[1]`, "invalid arguments for now: arguments must be a JSON object, got an array", true},
		{"string", "now", `"x"`, "invalid arguments for now: arguments must be a JSON object, got a string", true},
		{"broken json", "now", `{"a":`, "invalid arguments for now: arguments are not valid JSON: unexpected EOF", true},
		{"trailing data", "now", `{} {}`, "invalid arguments for now: arguments are not valid JSON: invalid character after top-level value", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Call(context.Background(), tt.tool, &CallRequest{Arguments: []byte(tt.args)})
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("result text mismatch (-want +got):\n%s", diff)
			}
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, tt.isError)
			}
		})
	}
}

func TestRegistryCallBrokenSchemaIsLenient(t *testing.T) {
	var logs bytes.Buffer
	r := NewRegistry(&RegistryOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	r.Set(Source{Kind: KindMCP, Server: "s"}, []Tool{
		newFake("bad_type", `{"type":"object","properties":{"a":{"type":"text"}}}`),
		newFake("remote_ref", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`),
		newFake("lookahead", `{"type":"object","properties":{"a":{"type":"string","pattern":"^(?!x)"}}}`),
		newFake("not_json", `{"type":`),
	})
	for _, name := range []string{"s__bad_type", "s__remote_ref", "s__lookahead", "s__not_json"} {
		res, err := r.Call(context.Background(), name, &CallRequest{Arguments: []byte(`{"a":1}`)})
		if err != nil || res.IsError {
			t.Errorf("Call(%s) = %+v, %v; want the tool called without validation", name, res, err)
		}
		// A second call must not log again: the failure is cached.
		r.Call(context.Background(), name, nil)
	}
	if n := strings.Count(logs.String(), "input schema does not compile"); n != 4 {
		t.Errorf("logged %d schema warnings, want 4:\n%s", n, logs.String())
	}
}

func TestRegistryCallPassesProgress(t *testing.T) {
	r := NewRegistry(nil)
	f := newFake("slow", "")
	f.Run = func(_ context.Context, req *CallRequest) (*Result, error) {
		req.Progress(Progress{Progress: 1, Total: 2})
		return TextResult("done"), nil
	}
	r.Set(Source{Kind: KindBuiltin}, []Tool{f})
	var got []Progress
	_, err := r.Call(context.Background(), "slow", &CallRequest{Progress: func(p Progress) { got = append(got, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Progress{{Progress: 1, Total: 2}}, got); diff != "" {
		t.Errorf("progress mismatch (-want +got):\n%s", diff)
	}
}

func FuzzCallArguments(f *testing.F) {
	for _, s := range []string{``, `{}`, `null`, `[]`, `{"path":"a","limit":3}`, `{"path":1}`, `{"a":`, `"x"`, `{"path":"\u00e9","mode":"text"}`, "{\"path\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	r := NewRegistry(nil)
	r.Set(Source{Kind: KindMCP, Server: "files"}, []Tool{newFake("read_file", readSchema)})
	f.Fuzz(func(t *testing.T, args []byte) {
		res, err := r.Call(context.Background(), "files__read_file", &CallRequest{Arguments: args})
		if err != nil {
			t.Fatalf("Call returned a Go error for bad arguments: %v", err)
		}
		if res == nil {
			t.Fatal("Call returned a nil result")
		}
	})
}
